/** What the current page must undo when the user navigates away (sockets, timers). */
let leave: (() => void)[] = [];

export function onLeave(fn: () => void): void {
  leave.push(fn);
}

export function leavePage(): void {
  const fns = leave;
  leave = [];
  for (const fn of fns) fn();
}
