/** A `<select>` over one of Rust's lists (from the bindings), each value in words. */
import { isOneOf } from "../lib/choice";

export function ChoiceSelect<T extends string>({
  values,
  labels,
  value,
  onChange,
  testId,
}: {
  values: readonly T[];
  labels: Readonly<Record<T, string>>;
  value: T;
  onChange: (value: T) => void;
  testId: string;
}) {
  return (
    <select
      className="select"
      data-testid={testId}
      value={value}
      onChange={(e) => {
        if (isOneOf(values, e.target.value)) onChange(e.target.value);
      }}
    >
      {values.map((v) => (
        <option key={v} value={v}>
          {labels[v]}
        </option>
      ))}
    </select>
  );
}
