/**
 * Effect metrics as Prometheus text (exposition format 0.0.4): counters and gauges as they are,
 * histograms as cumulative `_bucket{le}` lines with `_sum` and `_count`, frequencies as one counter
 * line per value. Effect's histogram buckets are cumulative already.
 */
import { MetricKeyType, MetricState, type MetricPair } from "effect"

const sanitizeName = (name: string) => name.replace(/[^a-zA-Z0-9_:]/g, "_").replace(/^([^a-zA-Z_:])/, "_$1")
const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"')
const escapeHelp = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")
const number = (n: number | bigint) => (typeof n === "bigint" ? n.toString() : Number.isFinite(n) ? String(n) : n > 0 ? "+Inf" : n < 0 ? "-Inf" : "NaN")

const labels = (tags: ReadonlyArray<{ readonly key: string; readonly value: string }>, extra: ReadonlyArray<readonly [string, string]> = []) => {
  const all = [...tags.map((t) => [t.key, t.value] as const), ...extra]
  if (all.length === 0) return ""
  return `{${all.map(([k, v]) => `${sanitizeName(k)}="${escapeLabel(v)}"`).join(",")}}`
}

/** The snapshot as Prometheus text, one family per metric name, in name order. */
export const prometheusText = (snapshot: ReadonlyArray<MetricPair.MetricPair.Untyped>): string => {
  const families = new Map<string, { type: string; help: string | undefined; lines: Array<string> }>()
  const family = (name: string, type: string, help: string | undefined) => {
    let found = families.get(name)
    if (found === undefined) {
      found = { type, help, lines: [] }
      families.set(name, found)
    }
    return found.lines
  }
  for (const pair of snapshot) {
    const key = pair.metricKey
    const name = sanitizeName(key.name)
    const help = key.description._tag === "Some" ? key.description.value : undefined
    const state = pair.metricState
    if (MetricKeyType.isCounterKey(key.keyType) && MetricState.isCounterState(state)) {
      family(name, "counter", help).push(`${name}${labels(key.tags)} ${number(state.count)}`)
    } else if (MetricKeyType.isGaugeKey(key.keyType) && MetricState.isGaugeState(state)) {
      family(name, "gauge", help).push(`${name}${labels(key.tags)} ${number(state.value)}`)
    } else if (MetricKeyType.isHistogramKey(key.keyType) && MetricState.isHistogramState(state)) {
      const lines = family(name, "histogram", help)
      for (const [boundary, count] of state.buckets) {
        if (Number.isFinite(boundary)) lines.push(`${name}_bucket${labels(key.tags, [["le", number(boundary)]])} ${count}`)
      }
      lines.push(`${name}_bucket${labels(key.tags, [["le", "+Inf"]])} ${state.count}`)
      lines.push(`${name}_sum${labels(key.tags)} ${number(state.sum)}`)
      lines.push(`${name}_count${labels(key.tags)} ${state.count}`)
    } else if (MetricKeyType.isFrequencyKey(key.keyType) && MetricState.isFrequencyState(state)) {
      const lines = family(name, "counter", help)
      for (const [value, count] of state.occurrences) lines.push(`${name}${labels(key.tags, [["value", value]])} ${count}`)
    } else if (MetricKeyType.isSummaryKey(key.keyType) && MetricState.isSummaryState(state)) {
      const lines = family(name, "summary", help)
      for (const [quantile, value] of state.quantiles) {
        if (value._tag === "Some") lines.push(`${name}${labels(key.tags, [["quantile", number(quantile)]])} ${number(value.value)}`)
      }
      lines.push(`${name}_sum${labels(key.tags)} ${number(state.sum)}`)
      lines.push(`${name}_count${labels(key.tags)} ${state.count}`)
    }
  }
  const out: Array<string> = []
  for (const name of [...families.keys()].sort()) {
    const f = families.get(name)!
    if (f.help !== undefined) out.push(`# HELP ${name} ${escapeHelp(f.help)}`)
    out.push(`# TYPE ${name} ${f.type}`)
    out.push(...f.lines.sort())
  }
  return `${out.join("\n")}\n`
}

/**
 * Gauges read from the shared database at each scrape: every worker reads the same figure, so a
 * merge takes it once (the highest) instead of summing it.
 */
export const SHARED_GAUGES: ReadonlySet<string> = new Set(["signet_outbox_pending", "signet_outbox_oldest_pending_seconds"])

const parseValue = (text: string) => (text === "+Inf" ? Number.POSITIVE_INFINITY : text === "-Inf" ? Number.NEGATIVE_INFINITY : Number(text))

/**
 * Several processes' expositions (as `prometheusText` writes them) as one: counters, histogram
 * buckets, sums and counts, and per-process gauges summed per label set; the gauges of `shared`
 * and summary quantiles (which cannot be added) taken at their highest.
 */
export const mergePrometheusTexts = (texts: ReadonlyArray<string>, shared: ReadonlySet<string> = SHARED_GAUGES): string => {
  const families = new Map<string, { type: string | undefined; help: string | undefined; samples: Map<string, number> }>()
  const family = (name: string) => {
    let found = families.get(name)
    if (found === undefined) {
      found = { type: undefined, help: undefined, samples: new Map() }
      families.set(name, found)
    }
    return found
  }
  for (const text of texts) {
    // Samples belong to the family of the `# TYPE` line above them (prometheusText writes one block per family).
    let current: string | undefined
    for (const line of text.split("\n")) {
      if (line === "") continue
      const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line)
      if (meta !== null) {
        const f = family(meta[2]!)
        if (meta[1] === "HELP") f.help = meta[3]
        else {
          f.type = meta[3]
          current = meta[2]
        }
        continue
      }
      if (line.startsWith("#")) continue
      // Label values never hold the last space: the value follows it.
      const space = line.lastIndexOf(" ")
      const key = line.slice(0, space)
      const value = parseValue(line.slice(space + 1))
      const name = key.replace(/\{.*$/, "")
      const f = family(current !== undefined && name.startsWith(current) ? current : name)
      const takeHighest = shared.has(name) || (f.type === "summary" && key.includes('quantile="'))
      const before = f.samples.get(key)
      f.samples.set(key, before === undefined ? value : takeHighest ? Math.max(before, value) : before + value)
    }
  }
  const out: Array<string> = []
  for (const name of [...families.keys()].sort()) {
    const f = families.get(name)!
    if (f.help !== undefined) out.push(`# HELP ${name} ${f.help}`)
    if (f.type !== undefined) out.push(`# TYPE ${name} ${f.type}`)
    out.push(...[...f.samples].map(([key, value]) => `${key} ${number(value)}`).sort())
  }
  return `${out.join("\n")}\n`
}
