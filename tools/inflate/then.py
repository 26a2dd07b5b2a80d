#!/usr/bin/python3
"""The main job on one core, with dt64 binaries of different commits:
issue #28's end-to-end target, the job's time against its time on the day
the issue was filed.

    make build
    git worktree add --detach /tmp/then 9572698 && make -C /tmp/then build
    /usr/bin/python3 tools/inflate/then.py then=/tmp/then/bin/dt64 \\
        now-klauspost=bin/dt64:DT64_INFLATE=klauspost now=bin/dt64 [--rounds 9]

9572698 is main when #28 was filed (its job inflated with klauspost's
decoder). Each contender is NAME=BINARY[:VAR=VALUE...], the binary run
with those variables set. The job is tools/bench/zarr_python.py's: the
256 MiB gzip:5 v2 `>M8[ns]` array zarr-python 2.13 writes, re-encoded by
`dt64 transcode --format 2 --unit us --endian little --codec zstd:3
--workers 1 --no-sync`. Each round runs every contender once, in an order
that rotates by round, and deletes each output (untimed) before the next
starts. A contender's time is the child's CPU time (user + system) and
its wall time; the table gives their medians over rounds and, for each
contender, the median of its per-round ratios to the first one's. The
first round's outputs must hold the same bytes.
"""
import argparse
import filecmp
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'bench'))
import zarr_python as zp  # noqa: E402  (the source and the timing are that script's)


def contender(spec):
    name, sep, rest = spec.partition('=')
    if not sep or not rest:
        raise argparse.ArgumentTypeError(f'{spec!r}: want NAME=BINARY[:VAR=VALUE...]')
    binary, *env = rest.split(':')
    extra = {}
    for e in env:
        k, sep, v = e.partition('=')
        if not sep:
            raise argparse.ArgumentTypeError(f'{spec!r}: {e!r} is not VAR=VALUE')
        extra[k] = v
    return name, os.path.abspath(binary), extra


def run(binary, extra):
    def job(src, dst):
        subprocess.run([binary, 'transcode', src, dst, '--format', '2', '--unit', 'us', '--endian', 'little',
                        '--codec', 'zstd:3', '--workers', '1', '--no-sync', '-q'],
                       check=True, stdout=subprocess.DEVNULL, env={**os.environ, **extra})
    return job


def same_tree(a, b):
    c = filecmp.dircmp(a, b)
    if c.left_only or c.right_only or c.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, c.common_files, shallow=False)
    return not mismatch and not errors and all(same_tree(os.path.join(a, d), os.path.join(b, d)) for d in c.common_dirs)


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('contenders', nargs='+', type=contender, help='NAME=BINARY[:VAR=VALUE...]; the first is the baseline')
    p.add_argument('--rounds', type=int, default=9)
    p.add_argument('--dir', help='working directory (default: a new temporary one, removed after); keeps the source')
    args = p.parse_args()
    work = args.dir or tempfile.mkdtemp(prefix='dt64-then-')
    os.makedirs(work, exist_ok=True)
    try:
        src = os.path.join(work, 'src.zarr')
        zp.make_source(src, 32 << 20, 256 << 10)
        names = [c[0] for c in args.contenders]
        wall = {n: [] for n in names}
        cpu = {n: [] for n in names}
        for r in range(args.rounds):
            k = r % len(args.contenders)
            outputs = {}
            for name, binary, extra in args.contenders[k:] + args.contenders[:k]:
                out = os.path.join(work, name + '.zarr')
                w, c = zp.timed(run(binary, extra), True, src, out)
                wall[name].append(w)
                cpu[name].append(c)
                outputs[name] = out
            if r == 0:
                for n in names[1:]:
                    if not same_tree(outputs[names[0]], outputs[n]):
                        sys.exit(f'{n} wrote other bytes than {names[0]}')
            for out in outputs.values():
                shutil.rmtree(out)
        base = names[0]
        print(f'{args.rounds} rounds, medians; ratios are per round to {base}, then the median')
        print(f'{"":16} {"CPU s":>7} {"wall s":>7} {"CPU ratio":>10} {"wall ratio":>10}')
        for n in names:
            cr = statistics.median(c / b for c, b in zip(cpu[n], cpu[base]))
            wr = statistics.median(w / b for w, b in zip(wall[n], wall[base]))
            print(f'{n:16} {statistics.median(cpu[n]):7.3f} {statistics.median(wall[n]):7.3f} {cr:10.3f} {wr:10.3f}')
        print(f'load average at the end: {os.getloadavg()[0]:.1f}')
    finally:
        if not args.dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
