// The board's questions to the server, each answered as [ok, body]: what may follow the
// staged moves (/games/<id>/staged; ``extra`` is more of the query, e.g. a counter picked up),
// and the whole move sent with Confirm (/games/<id>/moves, one atomic change, with the page's
// CSRF token).

function answer(response) {
  return response.json().then((body) => [response.ok, body]);
}

/** The query string of staged moves, each as ``m=``. */
export function movesQuery(moves) {
  return moves.map((m) => "m=" + encodeURIComponent(m)).join("&");
}

export function askStaged(game, moves, extra) {
  return fetch("/games/" + encodeURIComponent(game) + "/staged?" + movesQuery(moves) + (extra || ""), {
    credentials: "same-origin", headers: { Accept: "application/json" },
  }).then(answer);
}

export function sendMove(game, moves) {
  const body = new URLSearchParams();
  const csrf = document.querySelector("input[name=csrf]");
  body.append("csrf", csrf ? csrf.value : "");
  moves.forEach((m) => body.append("m", m));
  return fetch("/games/" + encodeURIComponent(game) + "/moves", {
    method: "POST", credentials: "same-origin", body, headers: { Accept: "application/json" },
  }).then(answer);
}
