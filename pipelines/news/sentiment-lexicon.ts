/**
 * The finance sentiment lexicon, written for Cairn (not copied from a licensed list). Three
 * kinds of word: polar words with a weight ("lawsuit" -1, "contract" +0.5), direction words
 * ("rose", "fell") whose polarity depends on what moved, and the metrics that move: good
 * ones (profit, sales, jobs) and bad ones (loss, costs) — "loss widened" is bearish,
 * "loss narrowed" bullish, "cut 300 jobs" bearish.
 */

const list = (s: string) => new Set(s.trim().split(/\s+/));

function weighted(groups: [weight: number, words: string][]): Map<string, number> {
  const m = new Map<string, number>();
  for (const [w, s] of groups) for (const word of s.trim().split(/\s+/)) m.set(word, w);
  return m;
}

/** Polar words and their weight (positive: bullish). */
export const POLAR = weighted([
  [
    1,
    `profitable profitability success successful successfully win wins won winning award awarded awards
     upgrade upgraded upgrades outperform outperformed outperforms bullish optimistic optimism robust solid
     strong stronger strongest strengthen strengthened strengthens record best beat beats exceeded exceeds
     exceeding surpass surpassed boost boosted boosts boosting improvement improvements favorable favourable
     positive recovery recovered rebound rebounded breakthrough upbeat stellar soared soaring skyrocketed
     lucrative accretive savings synergies benefit benefits benefited moon tendies`,
  ],
  [
    0.5,
    `agreement agreements contract contracts signed order orders ordered deliver delivers delivery deliveries
     partnership partnerships selected chosen expansion expanding leading leader innovative efficiency
     efficient opportunity opportunities attractive welcomes pleased upside`,
  ],
  [
    -1,
    `loss-making unprofitable bankruptcy bankrupt insolvency insolvent default defaulted lawsuit lawsuits sued
     fraud fraudulent scandal fined penalty penalties recall recalls downgrade downgraded downgrades
     underperform underperformed bearish pessimistic weak weaker weakest weakness weakened weakening worse
     worsen worsened worsening worst crisis slump slumped slumps plunge plunged plunges plunging plummeted
     tumble tumbled tumbles slid sank collapse collapsed crash crashed miss missed misses warning warns
     warned layoffs redundancies redundancy dismissals terminated termination closure shutdown halt
     halted suspend suspended suspension shortfall impairment impairments writedown writedowns deficit
     negative struggle struggling struggled hurt damage damaged adverse disappointing disappointed dampened
     eaten eroded erosion downturn recession furlough furloughs furloughed bagholder bagholders rekt`,
  ],
  [
    -0.5,
    `loss losses concern concerns worried worries fear fears risk risks uncertainty uncertain volatile difficult
     difficulties challenging problem problems dispute disputes litigation pressure pressured below close
     closing closed shut delay delayed delays probe investigation bleak grim gloomy threat threats puts`,
  ],
]);

/** Words that give a direction: what moved went up. */
export const UP = list(`
  rise rises rose risen rising increase increased increases increasing grow grew grown grows growing growth
  up higher climb climbed climbs climbing jump jumped jumps surge surged surges surging gain gained gaining
  gains advance advanced advances double doubled doubling tripled widen widened widening rally rallied
  accelerate accelerated improve improved improves improving expand expanded expands raise raised hike hiked
  boost boosted strengthen strengthened soar soared exceed exceeded
`);

/** Words that give a direction: what moved went down. */
export const DOWN = list(`
  fall falls fell fallen falling decrease decreased decreases decreasing decline declined declines declining
  drop dropped drops dropping down lower lowered reduce reduced reduces reducing reduction reductions cut
  cuts cutting shrink shrank shrunk shrinking slip slipped slips dip dipped dips sink sank narrow narrowed
  narrowing halve halved slowed slow slowing slower weaken weakened diminish diminished plunge plunged
  plummeted slumped tumbled sagged eased terminate terminated eliminate eliminated
`);

/** Things it is good to have more of. */
export const GOOD_METRICS = list(`
  profit profits earnings income sales revenue revenues turnover ebit ebitda eps margin margins
  order orders intake backlog demand share shares price prices dividend dividends cash flow
  production output volume volumes deliveries growth result results value capacity rating ratings
  stock stocks equities valuation return returns yield customers subscribers traffic occupancy productivity
  jobs staff personnel workforce employees employment headcount people workers positions
`);

/** Things it is good to have less of. */
export const BAD_METRICS = list(`
  loss losses cost costs expense expenses expenditure expenditures debt debts liabilities unemployment
  deficit layoffs inventory inventories provisions impairment writedowns charges burn defaults
  delinquencies arrears claims
`);

/** Moves of these say nothing good or bad (share capital after an issue, a holding). */
export const NEUTRAL_METRICS = list(`capital stake holding holdings ownership`);

/** Negators flip the polarity of the next few words ("did not rise", "no improvement"). */
export const NEGATORS = list(`not no never without neither nor cannot can't don't doesn't didn't won't isn't
  wasn't aren't weren't hasn't haven't hadn't unable`);

/** Words that turn a statement into a plan or forecast: weaker evidence than a reported result. */
export const HEDGES = list(`may might could would should if expects expected plans planned aims intends
  forecast forecasts estimate estimated estimates target targets`);

/** Multi-word expressions, rewritten to one token before scoring. */
export const PHRASES: [RegExp, string][] = [
  [/\b(lay(?:ing|s)?|laid)[- ]?offs?\b/g, " layoffs "],
  [/\bno longer (be )?needed\b/g, " layoffs "],
  [
    /\b(swung|slipped|fell|turned|moved|sank|plunged|dropped|went)( back)? ?(in)?to (a |an )?((larger|bigger|deeper)[- ]than[- ]expected )?(net |operating |pre-?tax |quarterly )?loss(es)?\b/g,
    " worsened loss ",
  ],
  [
    /\b(swung|turned|moved|returned|went)( back)? ?(in)?to (a |an )?(net |operating |pre-?tax |quarterly )?profit\b/g,
    " improved profit ",
  ],
  [
    /\bloss(es)?\b[^.;]{0,80}\b(compared (to|with)|from|versus|vs\.?|against) (a |an )?(net |operating |pre-?tax )?profit\b/g,
    " worsened loss ",
  ],
  [
    /\bprofit\b[^.;]{0,80}\b(compared (to|with)|from|versus|vs\.?|against) (a |an )?(net |operating |pre-?tax )?loss(es)?\b/g,
    " improved profit ",
  ],
  [
    /\b(close|closed|closes|closing|shut|shuts|shutting)( down)? (its |the |their |a |an )?(\w+ )?(\w+ )?(plants?|mills?|stores?|operations|factor(y|ies)|units?|sites?|offices?|shops?|branches|facilit(y|ies)|production lines?)\b/g,
    " closure ",
  ],
  [/\b(?:higher|better|stronger|larger|bigger)[- ]than[- ]expected\b/g, " beat "],
  [/\b(?:lower|weaker|worse|smaller)[- ]than[- ]expected\b/g, " missed "],
  [/\bbelow (expectations|forecasts|estimates)\b/g, " missed "],
  [/\babove (expectations|forecasts|estimates)\b/g, " beat "],
  [/\bcut short\b/g, " halted "],
  [/\bsign(s|ed|ing)? up\b/g, " enrol "],
  // A share issue changes the count of shares, not their value.
  [/\b(share capital|number of (the company )?(\w+ )?shares( outstanding)?|shares outstanding)\b/g, " capital "],
];
