/** "+3 −1", the added count green and the removed red. */
export function Counts({ added, removed }: { added: number; removed: number }) {
  return (
    <span className="change-counts">
      <span className="add">+{added}</span> <span className="del">−{removed}</span>
    </span>
  );
}
