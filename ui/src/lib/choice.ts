/** Whether `value` is one of `list`'s (a Rust enum's values, from the bindings): what a `<select>` gave back. */
export function isOneOf<T extends string>(list: readonly T[], value: string): value is T {
  return (list as readonly string[]).includes(value);
}
