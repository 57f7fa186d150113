// tests/test_typescript.py compiles this (tsc --strict --noEmit) against the types
// openapi-typescript generates from openapi/openapi.json: what a TypeScript client relies on.
import type { components, paths } from "./kurier";

type S = components["schemas"];
type Json<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: { content: { "application/json": infer T } } };
}
  ? T
  : never;

// A game's view is told apart by the game's type, and names its own view and decisions.
export function progress(game: Json<"/v1/games/{game_id}", "get">): string {
  switch (game.type) {
    case "attila":
      return `century ${game.view?.century ?? "-"}, ${game.your_decision?.step ?? "waiting"}`;
    case "attika":
      return `turn ${game.view?.turn ?? "-"}`;
    case "attila-wargame":
      return `round ${game.view?.round ?? "-"} (${game.view?.season ?? ""})`;
    default: {
      const unknown: never = game; // every game type handled
      return unknown;
    }
  }
}

// Results are typed per game; the wargame's names its side and points lines.
export function winnerSide(game: S["AttilaWargameGameView"]): string | undefined {
  const lines: Record<string, number> | undefined = game.result?.points_lines;
  return `${game.result?.winner_side} ${Object.keys(lines ?? {}).length}`;
}

// Events: a kind this document names, or another one (a newer server's).
const NAMED: ReadonlySet<string> = new Set<S["KnownGameEvent"]["kind"]>([
  "card_played",
  "game_ended",
  "game_over",
]);

function named(event: S["GameEvent"]): event is S["KnownGameEvent"] {
  return NAMED.has(event.kind);
}

export function say(event: S["GameEvent"]): string {
  if (!named(event)) {
    return `something happened (${event.kind}): read the game again`;
  }
  switch (event.kind) {
    case "card_played":
      return `seat ${event.data.seat} played ${event.data.people}`;
    case "game_ended":
      return `over: ${event.data.reasons.join(", ")}, won by ${event.data.winners.join(", ")}`;
    case "game_over":
      return `seed ${event.data.seed}, winners ${event.data.result.winners.join(", ")}`;
    default:
      return event.kind;
  }
}

export function pages(page: Json<"/v1/games/{game_id}/events", "get">): string[] {
  return page.items.flatMap((entry) => entry.events.map(say));
}

// Legal actions come typed by the game; their action objects go back as they came.
export function firstMove(
  legal: Json<"/v1/games/{game_id}/legal-actions", "get">,
): S["ActionRequest"] | null {
  if (legal.type === "attila" && legal.decision?.step === "play_card") {
    const action = legal.actions[0]?.action;
    return action ? { action: action as S["Action"] } : null;
  }
  const first = legal.actions[0];
  return first ? { notation: first.notation } : null;
}

// Exactly one of notation / action.
export const byNotation: S["ActionRequest"] = { notation: "V ITA" };
export const byObject: S["ActionRequest"] = {
  action: { type: "play", people: "V", province: "ITA" },
  expected_version: 12,
};
export const inOrder: S["ActionRequest"] = {
  actions: ["V ITA", { type: "influence" }],
};
// @ts-expect-error: none of notation, action and actions
export const neither: S["ActionRequest"] = { expected_version: 12 };

// Options and deadlines are typed, also when creating a game.
export const create: S["GameCreate"] = {
  type: "attila",
  seats: 3,
  options: { DRAW_PILE_EXHAUSTED: "stop_drawing" },
  deadline: { hours: 72, policy: "remind_only" },
};

// The streams' payloads (examples/streams.py parses the same with the Python client).
export function onStream(name: string, data: string): string {
  if (name === "entry") {
    const entry: S["LogEntry"] = JSON.parse(data);
    return entry.events.map(say).join("; ");
  }
  if (name === "inbox") {
    const change: S["InboxChange"] = JSON.parse(data);
    return `${change.game_type} ${change.version}: ${change.your_decision?.step ?? "nothing owed"}`;
  }
  if (name === "end") {
    const end: S["StreamEnd"] = JSON.parse(data);
    return `${end.status} at ${end.version}`;
  }
  return name;
}
