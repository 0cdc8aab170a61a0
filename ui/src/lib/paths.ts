/**
 * A path as a tool card shows it: relative to the tree its agent works in (the
 * workspace, or its worktree) when it lies inside it, as Claude Code shows its
 * calls; the model's absolute path otherwise, so that a call reaching outside
 * the tree says so.
 */

/** `path` relative to `root` when it lies inside it ("." for the root itself); `path` unchanged otherwise. */
export function shownPath(path: string, root: string | null): string {
  if (root === null || root === "" || !path.startsWith("/")) return path;
  const base = root.endsWith("/") && root.length > 1 ? root.slice(0, -1) : root;
  if (path === base) return ".";
  const prefix = base === "/" ? "/" : `${base}/`;
  if (!path.startsWith(prefix)) return path;
  const rest = path.slice(prefix.length).replace(/^\/+/, "");
  return rest === "" ? "." : rest;
}
