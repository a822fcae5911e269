import { SLOT_CLASSES, type SlotClass, type SlotCounts } from '../../protocol/slots.js';

/**
 * Credit accounting per slot class. A slot is held by a run from its arrival until its result is spooled;
 * credit is granted only for slots that are neither held nor already granted, so the control plane can never
 * send more runs than the agent can start.
 */
export class SlotLedger {
  private readonly held: SlotCounts = { light: 0, browser: 0 };
  private readonly granted: SlotCounts = { light: 0, browser: 0 };

  constructor(readonly capacity: Readonly<SlotCounts>) {}

  /** A new connection: credit granted on the old one is void. */
  voidGrants(): void {
    for (const c of SLOT_CLASSES) this.granted[c] = 0;
  }

  /** Counts a run that arrived against the credit of its class; false when it came without credit. */
  claim(slotClass: SlotClass): boolean {
    if (this.granted[slotClass] <= 0) return false;
    this.granted[slotClass]--;
    this.held[slotClass]++;
    return true;
  }

  /** A run's slot is free again. */
  release(slotClass: SlotClass): void {
    this.held[slotClass] = Math.max(0, this.held[slotClass] - 1);
  }

  /** The credit to grant now, counted as granted. */
  takeGrant(): SlotCounts {
    const grant = { light: 0, browser: 0 };
    for (const c of SLOT_CLASSES) {
      grant[c] = this.ungranted(c);
      this.granted[c] += grant[c];
    }
    return grant;
  }

  /**
   * Whether the control plane holds credit for at least half of the class's slots: it can hand out that many runs
   * at once, so a slot freed now need not be granted at once.
   */
  wellGranted(slotClass: SlotClass): boolean {
    return this.granted[slotClass] * 2 >= this.capacity[slotClass];
  }

  /** Whether some class holds less than half its credit at the control plane and has slots to grant. */
  runningShort(): boolean {
    return SLOT_CLASSES.some((c) => !this.wellGranted(c) && this.ungranted(c) > 0);
  }

  /** Slots of the class that are neither held nor granted. */
  ungranted(slotClass: SlotClass): number {
    return Math.max(0, this.capacity[slotClass] - this.held[slotClass] - this.granted[slotClass]);
  }

  /** Whether some run holds a slot: its result may come soon. */
  busy(): boolean {
    return SLOT_CLASSES.some((c) => this.held[c] > 0);
  }

  free(slotClass: SlotClass): number {
    return Math.max(0, this.capacity[slotClass] - this.held[slotClass]);
  }
}
