/** A memo that cannot grow without bound. */

/**
 * Sets `key` in `map`, first dropping the oldest entry when the map holds `limit` already: the
 * memos of the signing path (keys, signers, verified tokens, names) stay bounded against a flood
 * of distinct inputs, and a dropped entry is only made again.
 */
export const setBounded = <K, V>(map: Map<K, V>, key: K, value: V, limit: number): void => {
  if (!map.has(key) && map.size >= limit) map.delete(map.keys().next().value!)
  map.set(key, value)
}
