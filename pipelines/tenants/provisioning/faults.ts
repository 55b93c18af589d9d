/**
 * Test-only fault hooks for the provisioning pipeline (issue 3: inject a failure at every
 * step). Off unless CAIRN_TEST_FAULTS is set, which config refuses in production.
 *   fail         the step throws before doing its work (a recorded failure)
 *   fail_after   the step does its work, then throws before its checkpoint
 *   crash_after  the process exits mid-step, after the work and before the checkpoint
 * Each planned fault fires once.
 */
export type FaultKind = "fail" | "fail_after" | "crash_after";

export class FaultInjector {
  private readonly plan = new Map<string, FaultKind>();

  constructor(readonly enabled: boolean) {}

  /** Parses `step_3:fail,step_5:crash_after` (CAIRN_TEST_FAULT_PLAN). */
  static parse(enabled: boolean, spec: string | undefined): FaultInjector {
    const f = new FaultInjector(enabled);
    for (const part of (spec ?? "").split(",").filter(Boolean)) {
      const [step, kind] = part.split(":");
      if (!step || (kind !== "fail" && kind !== "fail_after" && kind !== "crash_after")) {
        throw new Error(`bad fault plan entry '${part}'`);
      }
      f.set(step, kind);
    }
    return f;
  }

  set(stepId: string, kind: FaultKind): void {
    if (!this.enabled) throw new Error("fault injection is disabled (CAIRN_TEST_FAULTS)");
    this.plan.set(stepId, kind);
  }

  clear(): void {
    this.plan.clear();
  }

  before(stepId: string): void {
    if (this.take(stepId, "fail")) throw new Error(`injected fault before ${stepId}`);
  }

  after(stepId: string): void {
    if (this.take(stepId, "fail_after")) throw new Error(`injected fault after ${stepId}`);
    if (this.take(stepId, "crash_after")) process.exit(137);
  }

  private take(stepId: string, kind: FaultKind): boolean {
    if (!this.enabled || this.plan.get(stepId) !== kind) return false;
    this.plan.delete(stepId);
    return true;
  }
}
