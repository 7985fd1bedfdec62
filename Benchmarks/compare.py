#!/usr/bin/env python3
"""Timing, memory, output and instruction-count helpers for Benchmarks/compare.sh.

    compare.py time WORK ID LABEL TARGET RSS_TARGET RUNS PARE_CMD PEER_NAME PEER_CMD
        Times PARE_CMD against PEER_CMD with hyperfine (-N), one run of each per round,
        the order swapped every round so that a change in machine load hits both alike.
        The first round has one warm-up run of each. Then one run of each under
        `/usr/bin/time -v` for the peak RSS. Appends one JSON line to WORK/results.jsonl.
        TARGET is the highest Pare/peer ratio the row must reach ("" when the row is only
        informative); RSS_TARGET "1" also requires Pare's peak RSS <= the peer's.
    compare.py time-vips WORK ID LABEL TARGET BYTES_TARGET RUNS PARE_CMD PARE_OUT INPUT SIZE VIPS_OUT
        Times PARE_CMD (a whole process, by hyperfine) against libvips called in this
        process as a server would call it (pyvips, libvips 8.18 from PyPI `pyvips-binary`,
        its operation cache off): `Image.thumbnail(INPUT, SIZE)` written to VIPS_OUT (JPEG at
        quality 85, Pare's default; PNG and PPM with libvips's defaults). One warm-up call,
        then at least 9 rounds, the order swapped every round. BYTES_TARGET "1" also
        requires Pare's file (PARE_OUT) to be no larger than libvips's.
    compare.py skip WORK ID LABEL PEER_NAME REASON
        Records a row that could not be timed.
    compare.py table WORK
        Prints the markdown table of WORK/results.jsonl and saves it as WORK/table.md.
    compare.py diff A B
        Compares two binary Netpbm files (P5, P6 or P7) sample by sample.
    compare.py callgrind WORK ID LABEL OUT_FILE
        Prints the total Ir of a callgrind output file and its top 10 functions (Swift
        names demangled), and appends them to WORK/callgrind.md (totals also to WORK/callgrind-totals.tsv).
"""
import json
import math
import os
import re
import shlex
import statistics
import subprocess
import sys


def hyperfine_round(work, commands, warmup):
    out = os.path.join(work, "round.json")
    args = ["hyperfine", "-N", "--style", "none", "--runs", "1", "--export-json", out]
    if warmup:
        args += ["--warmup", "1"]
    subprocess.run(args + commands, check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return [r["times"][0] for r in json.load(f)["results"]]


def peak_rss_kib(work, command):
    """Maximum resident set size of one run, in KiB, as /usr/bin/time -v reports it."""
    log = os.path.join(work, "time-v.txt")
    with open(os.devnull, "w") as null:
        subprocess.run(["/usr/bin/time", "-v", "-o", log] + shlex.split(command), check=True,
                       stdout=null, stderr=null)
    with open(log) as f:
        match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", f.read())
    return int(match.group(1)) if match else None


def time_case(work, case_id, label, target, rss_target, runs, pare, peer_name, peer):
    times = {"pare": [], "peer": []}
    for round_index in range(int(runs)):
        order = ["pare", "peer"] if round_index % 2 == 0 else ["peer", "pare"]
        commands = [pare if who == "pare" else peer for who in order]
        for who, seconds in zip(order, hyperfine_round(work, commands, round_index == 0)):
            times[who].append(seconds * 1000)
    row = {
        "id": case_id, "label": label, "peer_name": peer_name,
        "target": float(target) if target else None, "rss_target": rss_target == "1",
        "pare_cmd": pare, "peer_cmd": peer,
        "pare_ms": times["pare"], "peer_ms": times["peer"],
        "pare_rss_kib": peak_rss_kib(work, pare), "peer_rss_kib": peak_rss_kib(work, peer),
    }
    with open(os.path.join(work, "results.jsonl"), "a") as f:
        f.write(json.dumps(row) + "\n")
    pm, qm = statistics.median(row["pare_ms"]), statistics.median(row["peer_ms"])
    print(f"{label}: pare {pm:.1f} ms, {peer_name} {qm:.1f} ms, ratio {pm / qm:.2f}", flush=True)


def time_vips(work, case_id, label, target, bytes_target, runs, pare, pare_out, source, size, vips_out):
    import time
    import pyvips
    pyvips.cache_set_max(0)
    version = ".".join(str(pyvips.version(i)) for i in range(3))
    options = {"Q": 85} if vips_out.endswith(".jpg") else {}

    def vips_once():
        start = time.perf_counter()
        pyvips.Image.thumbnail(source, int(size)).write_to_file(vips_out, **options)
        return (time.perf_counter() - start) * 1000

    vips_once()
    subprocess.run(shlex.split(pare), check=True, stdout=subprocess.DEVNULL)
    times = {"pare": [], "peer": []}
    for round_index in range(max(int(runs), 9)):
        order = ["pare", "peer"] if round_index % 2 == 0 else ["peer", "pare"]
        for who in order:
            if who == "pare":
                times["pare"].append(hyperfine_round(work, [pare], False)[0] * 1000)
            else:
                times["peer"].append(vips_once())
    peer_name = f"libvips {version} in-process"
    row = {
        "id": case_id, "label": label, "peer_name": peer_name,
        "target": float(target) if target else None, "rss_target": False, "bytes_target": bytes_target == "1",
        "pare_cmd": pare, "peer_cmd": f"pyvips.Image.thumbnail({source!r}, {size}).write_to_file({vips_out!r})",
        "pare_ms": times["pare"], "peer_ms": times["peer"],
        "pare_rss_kib": peak_rss_kib(work, pare), "peer_rss_kib": None,
        "pare_bytes": os.path.getsize(pare_out), "peer_bytes": os.path.getsize(vips_out),
    }
    with open(os.path.join(work, "results.jsonl"), "a") as f:
        f.write(json.dumps(row) + "\n")
    pm, qm = statistics.median(row["pare_ms"]), statistics.median(row["peer_ms"])
    print(f"{label}: pare {pm:.1f} ms, {peer_name} {qm:.1f} ms, ratio {pm / qm:.2f}; "
          f"files {row['pare_bytes']} and {row['peer_bytes']} bytes", flush=True)


def spread(values):
    return f"{statistics.median(values):.1f} ({min(values):.1f}–{max(values):.1f})"


def mib(kib):
    return "?" if kib is None else f"{kib / 1024:.1f}"


def table(work):
    rows = []
    with open(os.path.join(work, "results.jsonl")) as f:
        for line in f:
            rows.append(json.loads(line))
    lines = [
        "| case | Pare ms median (min–max) | peer | peer ms median (min–max) | Pare/peer "
        "| Pare RSS MiB | peer RSS MiB | target | met |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "skipped" in r:
            lines.append(f"| {r['label']} | – | {r['peer_name']} | – | – | – | – | – | skipped: {r['skipped']} |")
            continue
        ratio = statistics.median(r["pare_ms"]) / statistics.median(r["peer_ms"])
        if r["target"] is None:
            target, met = "–", "–"
        else:
            target = f"≤ {r['target']:g}"
            ok = ratio <= r["target"]
            if r["rss_target"]:
                target += ", RSS ≤ peer"
                ok = ok and r["pare_rss_kib"] is not None and r["peer_rss_kib"] is not None \
                    and r["pare_rss_kib"] <= r["peer_rss_kib"]
            if r.get("bytes_target"):
                target += ", bytes ≤ peer"
                ok = ok and r["pare_bytes"] <= r["peer_bytes"]
            met = "yes" if ok else "no"
        if "pare_bytes" in r:
            r["label"] += f" (files: {r['pare_bytes'] / 1024:.0f} / {r['peer_bytes'] / 1024:.0f} KiB)"
        lines.append(f"| {r['label']} | {spread(r['pare_ms'])} | {r['peer_name']} | {spread(r['peer_ms'])} "
                     f"| {ratio:.2f} | {mib(r['pare_rss_kib'])} | {mib(r['peer_rss_kib'])} | {target} | {met} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(work, "table.md"), "w") as f:
        f.write(text)
    print(text, end="")


def skip(work, case_id, label, peer_name, reason):
    with open(os.path.join(work, "results.jsonl"), "a") as f:
        f.write(json.dumps({"id": case_id, "label": label, "peer_name": peer_name, "skipped": reason}) + "\n")
    print(f"{label}: skipped ({reason})", flush=True)


def read_netpbm(path):
    """(width, height, channels, maxval, sample bytes) of a binary P5, P6 or P7 file."""
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:2]
    if magic == b"P7":
        end = data.index(b"ENDHDR\n") + len(b"ENDHDR\n")
        fields = dict(line.split(None, 1) for line in data[3:end - 7].decode().splitlines() if " " in line)
        return (int(fields["WIDTH"]), int(fields["HEIGHT"]), int(fields["DEPTH"]), int(fields["MAXVAL"]),
                data[end:])
    if magic not in (b"P5", b"P6"):
        raise ValueError(f"{path}: not a binary Netpbm file")
    values, pos = [], 2
    while len(values) < 3:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        start = pos
        while not data[pos:pos + 1].isspace():
            pos += 1
        values.append(int(data[start:pos]))
    return values[0], values[1], 3 if magic == b"P6" else 1, values[2], data[pos + 1:]


def diff(a_path, b_path):
    a, b = read_netpbm(a_path), read_netpbm(b_path)
    if a[:4] != b[:4]:
        print(f"differ in shape: {a[:4]} vs {b[:4]} (width, height, channels, maxval)")
        return
    if a[4] == b[4]:
        print("identical")
        return
    import numpy as np
    x = np.frombuffer(a[4], dtype=np.uint8).astype(np.int16)
    y = np.frombuffer(b[4], dtype=np.uint8).astype(np.int16)
    n = min(len(x), len(y))
    delta = np.abs(x[:n] - y[:n])
    mse = float((delta.astype(np.float64) ** 2).mean())
    psnr = "inf" if mse == 0 else f"{10 * math.log10(255 ** 2 / mse):.1f} dB"
    print(f"differ: {int((delta != 0).sum())} of {n} samples, max |Δ| {int(delta.max())}, PSNR {psnr}")


def demangle(names):
    try:
        result = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(names),
                                capture_output=True, text=True, check=True)
        out = result.stdout.splitlines()
        return out if len(out) == len(names) else names
    except (OSError, subprocess.CalledProcessError):
        return names


def callgrind(work, case_id, label, out_file):
    report = subprocess.run(["callgrind_annotate", "--auto=no", "--inclusive=no", "--threshold=100", out_file],
                            capture_output=True, text=True, check=True).stdout
    # Self cost per file:function; code inlined from another file is listed under that file,
    # so the entries of one function are summed.
    total, by_symbol = None, {}
    for line in report.splitlines():
        match = re.match(r"\s*([\d,]+)\s+(?:\(\s*[\d.]+%\)\s+)?(PROGRAM TOTALS|\S.*)$", line)
        if not match:
            continue
        ir = int(match.group(1).replace(",", ""))
        if match.group(2) == "PROGRAM TOTALS":
            total = ir
        elif total is not None and ":" in match.group(2):
            where, _, symbol = match.group(2).partition(":")
            symbol, _, obj = symbol.partition(" [")
            if where == "???" and obj:
                where = obj.rstrip("]")  # no debug info: name the library instead
            entry = by_symbol.setdefault(symbol, [0, set()])
            entry[0] += ir
            entry[1].add(os.path.basename(where))
    top = sorted(by_symbol.items(), key=lambda item: -item[1][0])[:10]
    names = demangle([symbol for symbol, _ in top])
    lines = [f"### {label}", "", f"Total Ir: {total:,}", "", "| Ir (self) | % | function | source files or library |", "|---|---|---|---|"]
    for (_, (ir, files)), name in zip(top, names):
        short = name if len(name) <= 110 else name[:107] + "..."
        lines.append(f"| {ir:,} | {100 * ir / total:.1f} | `{short}` | {', '.join(sorted(files))} |")
    text = "\n".join(lines) + "\n\n"
    with open(os.path.join(work, "callgrind.md"), "a") as f:
        f.write(text)
    with open(os.path.join(work, "callgrind-totals.tsv"), "a") as f:
        f.write(f"{case_id}\tpare\t{label}\t{total}\n")
    print(text, end="", flush=True)


def total_ir(out_file):
    with open(out_file) as f:
        for line in f:
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    raise ValueError(f"{out_file}: no totals line")


def callgrind_peer(work, case_id, peer_name, out_file):
    with open(os.path.join(work, "callgrind-totals.tsv"), "a") as f:
        f.write(f"{case_id}\tpeer\t{peer_name}\t{total_ir(out_file)}\n")


def callgrind_summary(work):
    """Pare's total Ir against the peer's for the same work: a ratio that machine load does not move."""
    cases = {}
    with open(os.path.join(work, "callgrind-totals.tsv")) as f:
        for line in f:
            case_id, who, label, total = line.rstrip("\n").split("\t")
            cases.setdefault(case_id, {})[who] = (label, int(total))
    lines = ["| case | Pare Ir | peer | peer Ir | Pare/peer Ir |", "|---|---|---|---|---|"]
    for entry in cases.values():
        label, pare = entry["pare"]
        if "peer" in entry:
            peer_name, peer = entry["peer"]
            lines.append(f"| {label} | {pare:,} | {peer_name} | {peer:,} | {pare / peer:.2f} |")
        else:
            lines.append(f"| {label} | {pare:,} | – | – | – |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(work, "callgrind.md"), "a") as f:
        f.write("### Totals against the peers\n\n" + text)
    print(text, end="")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"time": time_case, "time-vips": time_vips, "table": table, "skip": skip, "diff": diff, "callgrind": callgrind,
     "callgrind-peer": callgrind_peer, "callgrind-summary": callgrind_summary}[command](*args)
