"""The vectorised alternative to loclab's scoring (issue 18, row 4): the 60 unified metrics
(hit@k, acc@k, recall@k, precision@k for k in 1, 3, 5, 10, MRR and MAP at file, module and
function level; span coverage recall, precision, tightness, macro and micro) of every run,
in numpy from the strings: each run's paths and symbols are factorised (np.unique), modules
derived once per distinct function id, rankings de-duplicated, and every metric computed
with array operations. Reads the data loclab's benchmark wrote (JSON), times only the scoring,
and prints one JSON line: {"ms", "perRunMs", "means": {metric: mean of the run means}} so
that loclab's answers can be checked against it.

    python3 benchmarks/lib/numpy_scoring.py DATA.json
"""
import json
import sys
import time

import numpy as np

KS = (1, 3, 5, 10)


def module_of(function_id):
    colon = function_id.find(":")
    if colon < 0:
        return function_id
    dot = function_id.find(".", colon + 1)
    return function_id if dot < 0 else function_id[:dot]


def flatten(lists):
    lengths = np.fromiter((len(items) for items in lists), dtype=np.int64, count=len(lists))
    flat = [item for items in lists for item in items]
    inst = np.repeat(np.arange(len(lists), dtype=np.int64), lengths)
    return inst, flat


def factorize(strings):
    """Codes of the strings in order of first sight, and the distinct strings (a hash table, as pandas.factorize)."""
    table = {}
    codes = np.fromiter((table.setdefault(item, len(table)) for item in strings), dtype=np.int64, count=len(strings))
    return codes, list(table)


def ranking_metrics(n, gold_lists, pred_lists, derive=None):
    """Per-instance values of the 18 ranking metrics of one level (NaN where gold is empty)."""
    g_inst, g_flat = flatten(gold_lists)
    p_inst, p_flat = flatten(pred_lists)
    codes, uniques = factorize(g_flat + p_flat)
    if derive is not None:
        # Derive once per distinct id, then factorise the derived ids.
        remap, uniques = factorize([derive(u) for u in uniques])
        codes = remap[codes] if len(codes) else codes
    c = max(len(uniques), 1)
    g_codes = codes[: len(g_flat)]
    p_codes = codes[len(g_flat):]
    # Distinct gold per instance.
    g_keys = np.unique(g_inst * c + g_codes)
    gold_size = np.bincount(g_keys // c, minlength=n)
    # Predicted: keep each item's first rank per instance (order preserved).
    p_keys = p_inst * c + p_codes
    _, first = np.unique(p_keys, return_index=True)
    keep = np.sort(first)
    k_inst = p_inst[keep]
    k_keys = p_keys[keep]
    starts = np.searchsorted(k_inst, np.arange(n))
    rank = np.arange(len(k_inst)) - starts[k_inst]  # 0-based rank after de-duplication
    hit = np.isin(k_keys, g_keys)
    values = {}
    hits_at = {}
    for k in KS:
        hits_at[k] = np.bincount(k_inst[hit & (rank < k)], minlength=n)
    # First gold rank and average precision.
    cum = np.cumsum(hit)
    before = np.concatenate(([0], cum))[starts]
    hit_number = cum - before[k_inst]  # hits so far within the instance, at this item
    first_rank = np.full(n, np.inf)
    np.minimum.at(first_rank, k_inst[hit], rank[hit] + 1)
    ap_sum = np.bincount(k_inst[hit], weights=hit_number[hit] / (rank[hit] + 1), minlength=n)
    included = gold_size > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        for k in KS:
            h = hits_at[k]
            values[f"hit@{k}"] = (h > 0).astype(float)
            values[f"acc@{k}"] = (h >= np.minimum(gold_size, k)).astype(float)
            values[f"recall@{k}"] = h / gold_size
            values[f"precision@{k}"] = h / k
        values["mrr"] = np.where(np.isfinite(first_rank), 1.0 / first_rank, 0.0)
        values["map"] = ap_sum / gold_size
    for key in values:
        values[key] = np.where(included, values[key], np.nan)
    return values


def merged(inst, path, start, end, c):
    """Spans merged into maximal intervals per (instance, path): arrays group, start, end."""
    if len(inst) == 0:
        empty = np.array([], dtype=np.int64)
        return empty, empty, empty
    group = inst * c + path
    order = np.lexsort((start, group))
    group, start, end = group[order], start[order], end[order]
    # Offset each group so that a running maximum of ends never crosses into the next group.
    big = int(end.max()) + 2
    o_start = start + group * big
    o_end = end + group * big
    running = np.maximum.accumulate(o_end)
    new = np.ones(len(group), dtype=bool)
    new[1:] = o_start[1:] > running[:-1] + 1
    ids = np.cumsum(new) - 1
    m_start = o_start[new] - group[new] * big
    m_end = np.maximum.reduceat(o_end, np.flatnonzero(new)) - group[new] * big
    return group[new], m_start, m_end


def span_metrics(n, gold_spans, pred_spans):
    g_inst, g_flat = flatten(gold_spans)
    p_inst, p_flat = flatten(pred_spans)
    codes, uniques = factorize([s[0] for s in g_flat] + [s[0] for s in p_flat])
    c = max(len(uniques), 1)
    starts = np.array([s[1] for s in g_flat] + [s[1] for s in p_flat], dtype=np.int64)
    ends = np.array([s[2] for s in g_flat] + [s[2] for s in p_flat], dtype=np.int64)
    ng = len(g_flat)
    gg, gs, ge = merged(g_inst, codes[:ng], starts[:ng], ends[:ng], c)
    pg, ps, pe = merged(p_inst, codes[ng:], starts[ng:], ends[ng:], c)
    gold_lines = np.bincount(gg // c, weights=ge - gs + 1, minlength=n)
    pred_lines = np.bincount(pg // c, weights=pe - ps + 1, minlength=n)
    # Cross join of predicted and gold intervals of the same (instance, path).
    order = np.argsort(gg, kind="stable")
    g_sorted = gg[order]
    lo = np.searchsorted(g_sorted, pg, side="left")
    hi = np.searchsorted(g_sorted, pg, side="right")
    counts = hi - lo
    p_rep = np.repeat(np.arange(len(pg)), counts)
    offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    g_idx = order[np.repeat(lo, counts) + offsets]
    overlap = np.minimum(pe[p_rep], ge[g_idx]) - np.maximum(ps[p_rep], gs[g_idx]) + 1
    positive = overlap > 0
    p_rep, g_idx, overlap = p_rep[positive], g_idx[positive], overlap[positive]
    overlap_lines = np.bincount(gg[g_idx] // c, weights=overlap, minlength=n)
    iou = overlap / ((ge[g_idx] - gs[g_idx] + 1) + (pe[p_rep] - ps[p_rep] + 1) - overlap)
    best = np.zeros(len(gg))
    np.maximum.at(best, g_idx, iou)
    touched = best > 0
    tight_sum = np.bincount(gg[touched] // c, weights=best[touched], minlength=n)
    tight_count = np.bincount(gg[touched] // c, minlength=n)
    included = gold_lines > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(included, overlap_lines / gold_lines, np.nan)
        precision = np.where(included, np.where(pred_lines > 0, overlap_lines / pred_lines, 0.0), np.nan)
        tightness = np.where(included & (tight_count > 0), tight_sum / tight_count, np.nan)
    inc = included
    return {
        "span.coverageRecall": np.nanmean(recall),
        "span.precision": np.nanmean(precision),
        "span.tightness": np.nanmean(tightness),
        "span.coverageRecallMicro": overlap_lines[inc].sum() / gold_lines[inc].sum(),
        "span.precisionMicro": overlap_lines[inc].sum() / pred_lines[inc].sum(),
        "span.tightnessMicro": tight_sum[inc].sum() / max(tight_count[inc].sum(), 1),
    }


def score_run(ids, gold, run):
    n = len(ids)
    g = [gold[i] for i in ids]
    p = [run.get(i, {"files": [], "functions": [], "locations": []}) for i in ids]
    means = {}
    levels = (
        ("file", [x["files"] for x in g], [x["files"] for x in p], None),
        ("module", [x["functions"] for x in g], [x.get("functions", []) for x in p], module_of),
        ("function", [x["functions"] for x in g], [x.get("functions", []) for x in p], None),
    )
    for level, gold_lists, pred_lists, derive in levels:
        values = ranking_metrics(n, gold_lists, pred_lists, derive)
        for key, array in values.items():
            means[f"{level}.{key}"] = float(np.nanmean(array))
    spans = span_metrics(n, [[(s["path"], s["startLine"], s["endLine"]) for s in x["spans"]] for x in g], [[(s["path"], s["startLine"], s["endLine"]) for s in x.get("locations", [])] for x in p])
    means.update({key: float(value) for key, value in spans.items()})
    return means


def main(path):
    with open(path) as handle:
        data = json.load(handle)
    ids, gold, runs = data["instanceIds"], data["gold"], data["runs"]
    score_run(ids, gold, runs[0])  # warm-up
    started = time.perf_counter()
    per_run = [score_run(ids, gold, run) for run in runs]
    ms = (time.perf_counter() - started) * 1000
    keys = per_run[0].keys()
    means = {key: sum(run[key] for run in per_run) / len(per_run) for key in keys}
    print(json.dumps({"ms": round(ms, 1), "perRunMs": round(ms / len(runs), 2), "metrics": len(keys), "means": means}))


if __name__ == "__main__":
    main(sys.argv[1])
