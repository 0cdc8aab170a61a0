/**
 * Text fields whose text lives in a small store of their own (a draft), not
 * in the form's state. Typing then re-renders the field alone: the form
 * around it (and the session view around that) is not rendered again for a
 * keystroke. What truly depends on the text reads the draft with a selector
 * (`useDraftValue(draft, (t) => t.trim() !== "")` for a Send button) and
 * re-renders only when that answer changes; the form reads the text when it
 * sends (`draft.get()`) and clears it with `draft.set("")`.
 */
import { useState, type CSSProperties, type InputHTMLAttributes, type TextareaHTMLAttributes } from "react";
import { createStore, useStore, type Store } from "../store/store";

export type Draft = Store<string>;

/** A draft for the life of the component that holds it. */
export function useDraft(initial = ""): Draft {
  const [draft] = useState(() => createStore(initial));
  return draft;
}

/** What a component shows of the draft: it re-renders when this changes, not at every keystroke. */
export function useDraftValue<S>(draft: Draft, selector: (text: string) => S): S {
  return useStore(draft, selector);
}

const whole = (text: string) => text;

type TextareaProps = Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "value" | "defaultValue" | "onChange">;
type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "value" | "defaultValue" | "onChange">;

/**
 * Its height comes from its rows (`--rows`, styles/theme.css `.draft-text`), never
 * from its text: the field is then a layout of its own, and a keystroke lays out
 * and paints it alone, not the page around it.
 */
export function DraftTextarea({ draft, className, style, ...props }: TextareaProps & { draft: Draft }) {
  const value = useStore(draft, whole);
  const rows = { "--rows": props.rows ?? 2, ...style } as CSSProperties;
  return (
    <textarea
      {...props}
      className={className ? `draft-text ${className}` : "draft-text"}
      style={rows}
      value={value}
      onChange={(e) => draft.set(e.target.value)}
    />
  );
}

export function DraftInput({ draft, ...props }: InputProps & { draft: Draft }) {
  const value = useStore(draft, whole);
  return <input {...props} value={value} onChange={(e) => draft.set(e.target.value)} />;
}
