// Every word the wargame's table shows, in the player's language: the board's data-words
// (wargame_table.WORDS). Free of the DOM (node --test imports it).

/**
 * say(key, values): the word ``key`` with its %(name)s placeholders filled as Python's %
 * does (and %% is a %); the key itself when the page has no such word.
 */
export function sayer(words) {
  return function say(key, values) {
    return (words[key] || key).replace(/%(?:\((\w+)\)s|%)/g, (all, name) => {
      if (!name) { return "%"; }
      return values && Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : all;
    });
  };
}
