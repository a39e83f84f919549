#!/usr/bin/env python3
"""Merges the Google Benchmark outputs of `make bench` into one report.

  scripts/bench-report.py <results-dir>            writes latest.json, latest.md, speedup.svg there
  scripts/bench-report.py <results-dir> --readme README.md --svg docs/bench/speedup.svg
                                                   also copies the table and the plot into the README

Reads the rows named "<workload>/t<threads>/<impl>" (bench/workload.h; an
impl "paired_<peer>" is kiln's steady state alternated with that peer round
by round, its ratio the median of the rounds' ratios),
"steady/<loop>/<cold_cache|warm_cache>" (bench/steady_bench.cpp) and
"train_steady/<loop>/cold_cache" (bench/training_bench.cpp): median and
spread over the repetitions, and the ratios, each between rows of one run of
one program. Other programs' rows go into latest.json only. Standard library
and gnuplot only.
"""
import json
import math
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
KILN = ("kiln_tier0", "kiln_tier1", "kiln_compile")
CEILINGS = {"stream_triad": "bytes_per_second", "fma_loop": "GFLOP/s"}
PEER_LABEL = {
    "torch_eager": "LibTorch eager",
    "torch_fused_gelu": "LibTorch fused gelu (tanh)",
    "torch_mm": "LibTorch mm",
    "openblas": "OpenBLAS sgemm",
    "hand_libmvec": "hand loop (libmvec)",
}
SECTIONS = [  # (workload prefix, title)
    ("dispatch/", "Dispatch on tiny tensors (per call; one op)"),
    ("gelu_chain/", "GELU chain, 9 ops written op by op (per call)"),
    ("reduce/", "Reductions"),
    ("sgemm_", "SGEMM, N x N float32"),
    ("mlp_", "MLP inference 784-512-512-10"),
    ("linear_relu/", "One linear layer with its ReLU, relu(linear(x, w, b)), batch x inputs x outputs"),
    ("train_", "Training steps: forward + backward with autograd (per step)"),
    ("record_", "Recording with autograd: 32 multiplications on 8 floats (per call; time/op)"),
    ("infer_", "CNN inference in eval mode (per call)"),
]
MARK_BEGIN, MARK_END = "<!-- bench-table:begin -->", "<!-- bench-table:end -->"
PAIRED = "paired_"  # a paired row's impl: PAIRED + the peer's


def base_name(name):
    """Strips what Google Benchmark appends: /repeats:5, /real_time, ..."""
    return re.sub(r"/(repeats:\d+|real_time|manual_time|iterations:\d+|min_time:[\d.]+)", "", name)


def load_rows(results):
    """{program: {row name: {"times": [s], "counters": [{...}], "error": str}}} and the raw outputs."""
    programs, raw = {}, {}
    for path in sorted(results.glob("*.json")):
        if path.name == "latest.json":
            continue
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError:
            print(f"bench-report: {path} is not complete JSON (the program failed?); skipped", file=sys.stderr)
            continue
        raw[path.stem] = data
        rows = programs.setdefault(path.stem, {})
        for b in data.get("benchmarks", []):
            if b.get("run_type") == "aggregate":
                continue
            r = rows.setdefault(base_name(b["name"]), {"times": [], "counters": [], "error": None})
            if b.get("error_occurred"):
                r["error"] = b.get("error_message", "error")
                continue
            r["times"].append(b["real_time"] * UNIT[b.get("time_unit", "ns")])
            skip = {"name", "run_name", "run_type", "repetitions", "repetition_index", "threads", "iterations",
                    "real_time", "cpu_time", "time_unit", "family_index", "per_family_instance_index", "aggregate_name"}
            r["counters"].append({k: v for k, v in b.items() if k not in skip and isinstance(v, (int, float))})
    return programs, raw


def summary(r):
    """Median time, half-range spread as a fraction of it, median counters."""
    if r["error"] or not r["times"]:
        return {"error": r["error"] or "no runs"}
    t = r["times"]
    med = statistics.median(t)
    keys = set().union(*r["counters"]) if r["counters"] else set()
    counters = {k: statistics.median([c[k] for c in r["counters"] if k in c]) for k in keys}
    best = r["counters"][t.index(min(t))] if len(r["counters"]) == len(t) else counters
    return {"median_s": med, "spread": (max(t) - min(t)) / 2 / med if med else 0, "reps": len(t),
            "min_s": min(t), "max_s": max(t), "counters": counters, "best_counters": best}


def split_row(name):
    m = re.fullmatch(r"(.+)/t(\d+)/([A-Za-z0-9_]+)", name)
    return (m.group(1), int(m.group(2)), m.group(3)) if m else None


def fmt_time(s):
    for unit, f in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if s >= f or unit == "ns":
            v = s / f
            return f"{v:.3g} {unit}" if v < 100 else f"{v:.0f} {unit}"


def fmt_ratio(x):
    return f"{x:.2f}×" if x < 10 else f"{x:.1f}×"


def build_groups(programs):
    """{(workload, threads): {"program": p, "impls": {impl: summary}}}"""
    groups = {}
    for prog, rows in programs.items():
        for name, r in rows.items():
            parts = split_row(name)
            if parts:
                w, t, impl = parts
                groups.setdefault((w, t), {"program": prog, "impls": {}})["impls"][impl] = summary(r)
    return groups


def ratios(groups, key):
    """Speed-ups of kiln's steady state over everything else in its group (> 1: kiln faster)."""
    g = groups[key]["impls"]
    t1 = g.get("kiln_tier1", {})
    out = {}
    if "median_s" not in t1:
        return out
    for impl, s in g.items():
        if impl in ("kiln_tier1", "kiln_compile") or "median_s" not in s:
            continue
        if impl.startswith(PAIRED):
            if "peer_over_kiln" in s["counters"]:
                out[impl] = s["counters"]["peer_over_kiln"]
        elif impl in CEILINGS:  # fraction of the ceiling: the best rate the machine reached in the run
            c = CEILINGS[impl]
            if c in s["best_counters"] and c in t1["counters"]:
                out[impl] = t1["counters"][c] / s["best_counters"][c]
        else:
            out[impl] = s["median_s"] / t1["median_s"]
    # kiln::compile's own column: its speed-up over LibTorch eager.
    if "median_s" in g.get("kiln_compile", {}) and "median_s" in g.get("torch_eager", {}):
        out["kiln_compile"] = g["torch_eager"]["median_s"] / g["kiln_compile"]["median_s"]
    w, t = key
    peak = groups.get(("fma_peak", t), {}).get("impls", {}).get("fma_loop", {})
    if w.startswith("sgemm_") and "GFLOP/s" in peak.get("best_counters", {}):
        out["fma_loop"] = t1["counters"]["GFLOP/s"] / peak["best_counters"]["GFLOP/s"]
    return out


def cell(s):
    if "error" in s:
        return "**FAILED**"
    return f"{fmt_time(s['median_s'])} ±{100 * s['spread']:.0f}%"


def section_table(groups, prefix):
    keys = sorted((k for k in groups if k[0].startswith(prefix)), key=lambda k: (natural(k[0]), k[1]))
    if not keys:
        return []
    impls, paired = [], []
    for k in keys:
        for i in groups[k]["impls"]:
            if i not in impls + paired:
                (paired if i.startswith(PAIRED) else impls).append(i)
    order = list(KILN) + list(PEER_LABEL) + list(CEILINGS)
    impls = [i for i in order if i in impls] + [i for i in impls if i not in order]
    paired = [PAIRED + i for i in impls if PAIRED + i in paired]
    ratio_cols = []
    for k in keys:
        for i in ratios(groups, k):
            if i not in ratio_cols:
                ratio_cols.append(i)
    ratio_cols = [i for i in impls + paired + ["fma_loop"] if i in ratio_cols]
    head = ["workload", "thr"] + [label(i) for i in impls] + [ratio_label(i) for i in ratio_cols]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for k in keys:
        g = groups[k]["impls"]
        r = ratios(groups, k)
        row = [k[0], str(k[1])] + [cell(g[i]) if i in g else "" for i in impls]
        row += [(f"**{fmt_ratio(r[i])}**" if i not in CEILINGS else f"{r[i]:.2f}") if i in r else "" for i in ratio_cols]
        comp = g.get("kiln_tier1", {}).get("counters", {}).get("compiled_groups/iter")
        if comp == 0:
            row[2 + impls.index("kiln_tier1")] += " (not compiled)"
        lines.append("| " + " | ".join(row) + " |")
    return lines


def natural(s):
    """Sort key: numbers by value, "16M" as 16 * 2^20."""
    s = re.sub(r"(\d+)M\b", lambda m: str(int(m.group(1)) << 20), s)
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", s)]


def label(impl):
    if impl.startswith(PAIRED):
        return label(impl[len(PAIRED):]) + ", alternated"
    return {"kiln_tier0": "kiln tier 0", "kiln_tier1": "kiln steady", "kiln_compile": "kiln::compile", "stream_triad": "STREAM triad",
            "fma_loop": "FMA peak"}.get(impl, PEER_LABEL.get(impl, impl))


def ratio_label(impl):
    if impl == "kiln_tier0":
        return "steady ÷ tier 0"
    if impl == "kiln_compile":
        return "kiln::compile vs LibTorch eager"
    if impl == "stream_triad":
        return "kiln GB/s ÷ triad"
    if impl == "fma_loop":
        return "kiln ÷ FMA peak"
    return "vs " + label(impl)


def steady_table(programs):
    rows = {n: summary(r) for rows in programs.values() for n, r in rows.items() if n.startswith("steady/")}
    if not rows:
        return []
    shown = [f"it{i:02d}_ms" for i in range(4)]
    head = ["loop", "disk cache", "tier 0 (JIT off)"] + [f"iteration {i}" for i in range(4)] + [
        "first compiled iteration", "slowest ÷ tier 0", "steady (last 10)", "steady speed-up over tier 0", "disk hits"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, s in sorted(rows.items()):
        loop, cache = name.split("/")[1:3]
        if "error" in s:
            lines.append(f"| {loop} | {cache} | **FAILED**: {s['error']} |")
            continue
        c = s["counters"]
        t0 = c.get("tier0_ms", 0)
        lines.append("| " + " | ".join([loop, cache.replace("_cache", ""), f"{t0:.1f} ms"] +
                                       [f"{c[k]:.1f} ms" if k in c else "" for k in shown] +
                                       [f"{c.get('first_compiled_iter', -1):.0f}", f"{c.get('max_iter_over_t0', 0):.2f}",
                                        f"{c.get('steady_ms', 0):.2f} ms",
                                        fmt_ratio(t0 / c["steady_ms"]) if c.get("steady_ms") else "",
                                        f"{c.get('disk_hits', 0):.0f}"]) + " |")
    return lines


def train_steady_table(programs):
    """The training loop's first steps while it compiles, beside LibTorch's, from one fresh process."""
    rows = {n: summary(r) for rows in programs.values() for n, r in rows.items() if n.startswith("train_steady/")}
    if not rows:
        return []
    head = ["loop", "", "first step", "first 10 steps", "steady step (last 10 of 60)",
            "kiln within 1.2x of steady from step"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, s in sorted(rows.items()):
        loop = name.split("/")[1]
        if "error" in s:
            lines.append(f"| {loop} | **FAILED**: {s['error']} |")
            continue
        c = s["counters"]
        for side, label_ in (("kiln", "kiln"), ("torch", "LibTorch eager")):
            lines.append("| " + " | ".join([loop, label_, f"{c.get(side + '_first_ms', 0):.1f} ms",
                                            f"{c.get(side + '_first10_ms', 0):.1f} ms",
                                            f"{c.get(side + '_steady_ms', 0):.2f} ms",
                                            f"{c['kiln_steady_from_step']:.0f}" if side == "kiln" else ""]) + " |")
    return lines


def tuning_table(results, env):
    """The kernels run-benches.sh tuned before the programs ran: the heuristic's time, the tuned time,
    and OpenBLAS's sgemm on a GEMM's shape as kiln tune timed it (one call's median, not interleaved with
    kiln's). A compiled reduction's speed is in GB/s, where a GEMM's is in GFLOP/s."""
    runs = sorted((results / "tuning").glob("t*.json"))
    if not runs:
        return []
    head = ["kernel", "thr", "heuristic", "tuned", "tuned vs heuristic", "GFLOP/s", "OpenBLAS", "vs OpenBLAS",
            "tuning time", "config"]
    lines = [f"Tuned with `kiln tune` before the programs ran ({env.get('tuning_seconds', '?')} s for all, "
             "the budget per shape was `KILN_TUNE_BUDGET` (default 20 s)); the programs read this run's database "
             "through `KILN_TUNING_DB`. The heuristic is what runs untuned.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for path in runs:
        threads = path.stem[1:]
        try:
            results_ = json.loads(path.read_text())
        except json.JSONDecodeError:
            lines.append(f"| {path.name} | {threads} | **FAILED**: not complete JSON (kiln tune failed?) |")
            continue
        for r in results_:
            lines.append("| " + " | ".join([r["target"], threads, fmt_time(r["default_ms"] / 1e3),
                                            fmt_time(r["tuned_ms"] / 1e3),
                                            fmt_ratio(r["default_ms"] / r["tuned_ms"]) if r["tuned_ms"] else "",
                                            f"{r['gflops']:.0f}" if r["gflops"] else f"{r['gbytes_per_second']:.0f} GB/s",
                                            fmt_time(r["openblas_ms"] / 1e3) if r.get("openblas_ms") else "-",
                                            fmt_ratio(r["openblas_ms"] / r["tuned_ms"])
                                            if r.get("openblas_ms") and r["tuned_ms"] else "-",
                                            f"{r['tuning_seconds']:.1f} s"
                                            + ("" if r["complete"] else " (budget)"),
                                            f"`{r['config']}`"]) + " |")
    return lines


def behind(groups):
    """Every ratio where kiln's steady state is slower than a peer, worst first."""
    out = []
    for k in groups:
        for impl, r in ratios(groups, k).items():
            if impl == "kiln_compile" and r < 1:
                out.append((r, f"{k[0]}, {k[1]} thread{'s' if k[1] > 1 else ''}: LibTorch eager is "
                               f"{1 / r:.2f}× faster than kiln::compile"))
            if impl in KILN or impl in CEILINGS:
                continue
            if r < 1:
                out.append((r, f"{k[0]}, {k[1]} thread{'s' if k[1] > 1 else ''}: {label(impl)} is "
                               f"{1 / r:.2f}× faster than kiln's steady state"))
    return [t for _, t in sorted(out)]


def read_env(results):
    env = {}
    p = results / "run-env.txt"
    if p.exists():
        for line in p.read_text().splitlines():
            if "=" in line:
                k, v = line.split("=", 1)
                env[k] = v
    return env


def machine_lines(env, raw):
    torch = next((d["context"].get("torch") for d in raw.values() if "torch" in d.get("context", {})), "LibTorch not found")
    blas = next((d["context"].get("openblas_config") for d in raw.values() if "openblas_config" in d.get("context", {})), "")
    return [
        f"Measured {env.get('date', '?')} on {env.get('cpu', '?')}, {env.get('cores', '?')} cores "
        f"({env.get('flags', '').strip()}), {env.get('memory', '?')}, {env.get('os', '?')}, {env.get('compiler', '?')}; "
        f"kiln {env.get('kiln_commit', '?')}. Load average (1, 5, 15 min) before the run {env.get('load_before', '?')}, "
        f"after {env.get('load_after', '?')}.",
        "",
        f"Peers: {torch}; {blas}. Settings for the bench command only: `{env.get('settings', '?')}`. "
        f"Median of the repetitions (± half their range), repetitions of different rows interleaved at random; "
        f"`--benchmark_min_time={env.get('min_time', '?')}`. "
        "Speed-ups are kiln's steady state (JIT on, after compile) over the column named; > 1: kiln is faster. "
        "Fractions of a ceiling (triad, FMA peak) are of the fastest repetition of the ceiling, the most the machine gave. "
        "Every ratio is between rows of the same run of the same program. "
        "On one thread, the columns \"vs ..., alternated\" time kiln's steady state and that peer in one row, "
        "round by round (60 rounds, each side's calls at least 5 ms), and take the median of the rounds' ratios: "
        "a change of the machine's speed that lasts seconds hits both sides of a round alike, where the medians "
        "of separate rows can come from different phases.",
    ]


def markdown(groups, programs, raw, env, results):
    out = ["### Results", ""] + machine_lines(env, raw) + [""]
    t = tuning_table(results, env)
    if t:
        out += ["#### Tuning on this machine", ""] + t + [""]
    for prefix, title in SECTIONS:
        t = section_table(groups, prefix)
        if t:
            out += [f"#### {title}", ""] + t + [""]
    t = steady_table(programs)
    if t:
        out += ["#### Time to steady state (GELU chain on 16M floats, fresh process each)", ""] + t + [""]
    t = train_steady_table(programs)
    if t:
        out += ["#### Time to steady state of a training loop (MLP 784-512-512-10, SGD, batch 128; fresh process, "
                "empty kernel cache)", ""] + t + [""]
    b = behind(groups)
    out += ["#### Where kiln is behind", ""] + ([f"- {x}" for x in b] or ["- nowhere in these rows"]) + [""]
    out += ["Plot: kiln's steady-state speed-up over each peer (log scale; 1 = parity).", "",
            "![speed-up of kiln over the peers](docs/bench/speedup.svg)", ""]
    return "\n".join(out)


PLOT_PEERS = ["kiln_tier0", "torch_eager", "torch_fused_gelu", "torch_mm", "openblas", "hand_libmvec"]
BAR = 0.8 / len(PLOT_PEERS)  # bar width; a row's bars fill 0.8 of its slot


def plot(groups, results):
    """One cluster of bars per row, one bar per peer, each drawn from 1 (parity) to the speed-up."""
    keys = [k for p, _ in SECTIONS for k in sorted(groups, key=lambda k: (natural(k[0]), k[1])) if k[0].startswith(p)]
    data = results / "speedup.dat"
    tics, values = [], [0.5, 2.0]
    with data.open("w") as f:
        f.write("# x ylow yhigh peer\n")
        for k in keys:
            r = ratios(groups, k)
            if not any(p in r for p in PLOT_PEERS):
                continue
            x = len(tics)
            tics.append(f'"{k[0]} t{k[1]}" {x}')
            for j, p in enumerate(PLOT_PEERS):
                if p in r:
                    values.append(r[p])
                    f.write(f"{x + (j - (len(PLOT_PEERS) - 1) / 2) * BAR:.4f} {min(1, r[p]):.4g} {max(1, r[p]):.4g} {j}\n")
    svg = results / "speedup.svg"
    titles = " ".join(f'"{label(p)}"' for p in PLOT_PEERS)
    lo, hi = (math.floor(math.log2(min(values)))), math.ceil(math.log2(max(values)))
    ytics = ", ".join(f"'{2 ** e:g}' {2 ** e:g}" if e >= 0 else f"'1/{2 ** -e}' {2 ** e:g}" for e in range(lo, hi + 1))
    script = f"""
set terminal svg size 1400,720 dynamic noenhanced font 'sans,11' background '#ffffff'
set output '{svg}'
set style fill solid 0.85 border -1
set logscale y 2
set yrange [{2.0 ** lo:g}:{2.0 ** hi:g}]
set ytics ({ytics})
set grid ytics
set xrange [-0.6:{len(tics) - 0.4}]
set xtics ({", ".join(tics)}) rotate by -40 font ',9' nomirror
set ylabel 'speed-up of kiln steady state (log scale; > 1: kiln faster)'
set key outside top center horizontal
set title 'kiln steady state against kiln tier 0 and the peers'
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb '#000000'
array T[{len(PLOT_PEERS)}] = [{titles.replace('" "', '", "')}]
plot for [j=0:{len(PLOT_PEERS) - 1}] '{data}' using ($4 == j ? $1 : NaN):(1):($1 - {BAR / 2:.4f}):($1 + {BAR / 2:.4f}):2:3 \\
     with boxxyerror title T[j + 1]
"""
    try:
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"bench-report: gnuplot failed ({e}); no plot", file=sys.stderr)
        return None
    return svg


def replace_between_markers(readme, text):
    s = readme.read_text()
    if MARK_BEGIN not in s or MARK_END not in s:
        sys.exit(f"bench-report: {readme} has no {MARK_BEGIN} ... {MARK_END} section")
    head, rest = s.split(MARK_BEGIN, 1)
    _, tail = rest.split(MARK_END, 1)
    readme.write_text(head + MARK_BEGIN + "\n" + text + "\n" + MARK_END + tail)


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    results = Path(argv[0])
    opts = dict(zip(argv[1::2], argv[2::2]))
    programs, raw = load_rows(results)
    if not programs:
        sys.exit(f"bench-report: no benchmark JSON in {results}")
    env = read_env(results)
    groups = build_groups(programs)
    rows = [{"workload": w, "threads": t, "program": g["program"], "impls": g["impls"], "kiln_speedup": ratios(groups, (w, t))}
            for (w, t), g in sorted(groups.items())]
    steady = {n: summary(r) for rs in programs.values() for n, r in rs.items() if n.startswith("steady/")}
    latest = {"run": env, "rows": rows, "steady": steady, "behind": behind(groups), "programs": raw}
    (results / "latest.json").write_text(json.dumps(latest, indent=1))
    md = markdown(groups, programs, raw, env, results)
    (results / "latest.md").write_text(md)
    svg = plot(groups, results)
    print(md)
    if "--readme" in opts:
        replace_between_markers(Path(opts["--readme"]), md)
        if svg and "--svg" in opts:
            Path(opts["--svg"]).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(svg, opts["--svg"])
        print(f"bench-report: copied the table into {opts['--readme']}" + (f" and the plot to {opts['--svg']}" if svg else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
