/** The relational read models ci.*, dm.*, pm.*, md.* (spec 1.9) and the portfolios behind pm.*. */
export class FoundryReadModels {}
