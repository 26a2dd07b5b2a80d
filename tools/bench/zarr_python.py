#!/usr/bin/python3
"""The main job per core: zarr-python 2.13's chunk loop next to
`dt64 transcode --workers 1`.

Run with Debian's python3-zarr and python3-numpy (make bench-report runs it
and appends its section to docs/performance.md):

    /usr/bin/python3 tools/bench/zarr_python.py --dt64 bin/dt64 [--rounds 5] [--markdown]

The source is what legacy Zarr data looks like and what dt64's end-to-end
benchmark uses: a v2 `>M8[ns]` array written by zarr-python 2.13 with
numcodecs' GZip level 5, timestamps one a second from 2024 with ±0.5 ms
jitter and 0.5 % NaT, 256 MiB in chunks of 2 MiB. Each contender re-encodes
it to a v2 `<M8[us]` array compressed with Zstd level 3 (NumPy's cast:
floored, NaT kept) in one process on one core:

  zarr    zarr-python's own API, one chunk per step:
          dst[sl] = src[sl].astype('<M8[us]') (zarr decodes into the
          array it returns; astype and the encode allocate)
  codecs  the chunk loop below zarr's indexing: the store's bytes,
          numcodecs GZip.decode into a reused buffer, np.copyto into a
          reused `<M8[us]` buffer, numcodecs Zstd(3).encode, the store
  zlib    codecs, with Python's zlib.decompress (C zlib, one call) in
          place of numcodecs GZip (Python's gzip module over C zlib)
  dt64    dt64 transcode SRC DST --format 2 --unit us --endian little
          --codec zstd:3 --workers 1 --no-sync (zarr-python does not
          fsync either)

Each round runs every contender once, in an order that rotates by round,
and deletes each output (untimed) before the next starts. A contender's
time is its CPU time (user + system: of this process for the Python
loops, of the child for dt64) and its wall time; the figures are medians
over rounds, in MB of decoded source (8 bytes an element) per second, and
the ratio of dt64's speed to each loop's is the median of the per-round
ratios. The first round's outputs are compared element for element: every
contender must write the same values.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

import numcodecs
import numpy as np
import zarr

NAT = np.iinfo(np.int64).min
START_NS = 1_704_067_200_000_000_000  # 2024-01-01T00:00:00


def make_source(path, elements, chunk, seed=1):
    """Writes the gzip:5 v2 source array with zarr-python, unless path
    already holds the one these arguments make (a --dir of an earlier run)."""
    made = [elements, chunk, seed]
    try:
        if zarr.open_array(zarr.DirectoryStore(path), mode='r').attrs.get('zarr_python_bench') == made:
            return
    except (ValueError, KeyError, zarr.errors.ArrayNotFoundError):
        pass
    a = zarr.open_array(zarr.DirectoryStore(path), mode='w', shape=(elements,), chunks=(chunk,),
                        dtype='>M8[ns]', compressor=numcodecs.GZip(level=5), fill_value='NaT')
    rng = np.random.default_rng(seed)
    for i in range(0, elements, chunk):
        n = min(chunk, elements - i)
        v = START_NS + (np.arange(i, i + n, dtype=np.int64) * 1_000_000_000) + rng.integers(-500_000, 500_001, n)
        v[rng.integers(0, 200, n) == 0] = NAT
        a[i:i + n] = v.view('M8[ns]')
    a.attrs['zarr_python_bench'] = made


def create_dest(path, src):
    return zarr.open_array(zarr.DirectoryStore(path), mode='w', shape=src.shape, chunks=src.chunks,
                           dtype='<M8[us]', compressor=numcodecs.Zstd(level=3), fill_value='NaT')


def loop_zarr(src_path, dst_path):
    src = zarr.open_array(zarr.DirectoryStore(src_path), mode='r')
    dst = create_dest(dst_path, src)
    c = src.chunks[0]
    for i in range(0, src.shape[0], c):
        dst[i:i + c] = src[i:i + c].astype('<M8[us]')


def loop_codecs(src_path, dst_path, decompress=None):
    src = zarr.open_array(zarr.DirectoryStore(src_path), mode='r')
    dst = create_dest(dst_path, src)
    gz, zs = numcodecs.GZip(), numcodecs.Zstd(level=3)
    c = src.chunks[0]
    inbuf = np.empty(c, dtype='>M8[ns]')
    outbuf = np.empty(c, dtype='<M8[us]')
    sstore, dstore = src.store, dst.store
    for k in range(src.nchunks):
        key = str(k)
        raw = sstore[key]
        if decompress is None:
            gz.decode(raw, out=inbuf)
            a = inbuf
        else:
            a = np.frombuffer(decompress(raw), dtype='>M8[ns]')
        np.copyto(outbuf, a, casting='unsafe')
        dstore[key] = zs.encode(outbuf)


def loop_zlib(src_path, dst_path):
    loop_codecs(src_path, dst_path, decompress=lambda raw: zlib.decompress(raw, 31))


def cpu_self():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_dt64(binary):
    def run(src_path, dst_path):
        subprocess.run([binary, 'transcode', src_path, dst_path, '--format', '2', '--unit', 'us',
                        '--endian', 'little', '--codec', 'zstd:3', '--workers', '1', '--no-sync', '-q'],
                       check=True, stdout=subprocess.DEVNULL)
    return run


def timed(fn, child, *args):
    cpu = cpu_children if child else cpu_self
    c0, t0 = cpu(), time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0, cpu() - c0


def dir_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs
               if not f.startswith('.z'))


def check_equal(outputs, elements):
    """Every output holds the same <M8[us] values, those of the source cast by NumPy."""
    ref = None
    for name, path in outputs.items():
        a = zarr.open_array(zarr.DirectoryStore(path), mode='r')
        v = a[:]
        if v.dtype != np.dtype('<M8[us]') or v.shape != (elements,):
            sys.exit(f'{name}: output is {v.dtype} {v.shape}, want <M8[us] ({elements},)')
        if ref is None:
            ref_name, ref = name, v
        elif not np.array_equal(v.view(np.int64), ref.view(np.int64)):
            i = int(np.argmax(v.view(np.int64) != ref.view(np.int64)))
            sys.exit(f'{name} and {ref_name} differ first at element {i}: {v[i]} and {ref[i]}')


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--dt64', default='bin/dt64', help='the dt64 binary')
    p.add_argument('--rounds', type=int, default=5)
    p.add_argument('--elements', type=int, default=32 << 20)
    p.add_argument('--chunk', type=int, default=256 << 10)
    p.add_argument('--dir', help='working directory (default: a new temporary one, removed after)')
    p.add_argument('--markdown', action='store_true', help='print the docs/performance.md section')
    args = p.parse_args()

    work = args.dir or tempfile.mkdtemp(prefix='dt64-zarr-python-')
    os.makedirs(work, exist_ok=True)
    try:
        src = os.path.join(work, 'src.zarr')
        make_source(src, args.elements, args.chunk)
        contenders = [('zarr', loop_zarr, False), ('codecs', loop_codecs, False),
                      ('zlib', loop_zlib, False), ('dt64', run_dt64(os.path.abspath(args.dt64)), True)]
        names = [c[0] for c in contenders]
        wall = {n: [] for n in names}
        cpu = {n: [] for n in names}
        size = {}
        for r in range(args.rounds):
            order = contenders[r % len(contenders):] + contenders[:r % len(contenders)]
            outputs = {}
            for name, fn, child in order:
                out = os.path.join(work, name + '.zarr')
                w, c = timed(fn, child, src, out)
                wall[name].append(w)
                cpu[name].append(c)
                if r == 0:
                    outputs[name] = out
                    size[name] = dir_bytes(out)
                else:
                    shutil.rmtree(out)
            if r == 0:
                check_equal(outputs, args.elements)
                for out in outputs.values():
                    shutil.rmtree(out)
        report(args, names, wall, cpu, size, dir_bytes(src))
    finally:
        if not args.dir:
            shutil.rmtree(work, ignore_errors=True)


def report(args, names, wall, cpu, size, src_size):
    mb = 8 * args.elements / 1e6
    med = statistics.median
    rows = []
    for n in names:
        ratio_cpu = med([cpu[n][i] / cpu['dt64'][i] for i in range(args.rounds)])
        ratio_wall = med([wall[n][i] / wall['dt64'][i] for i in range(args.rounds)])
        rows.append((n, mb / med(cpu[n]), mb / med(wall[n]), ratio_cpu, ratio_wall, size[n] / 1e6))
    loops = [r for r in rows if r[0] != 'dt64']
    best = max(loops, key=lambda r: r[1])
    if not args.markdown:
        print(f'{"":8} {"MB/s CPU":>9} {"MB/s wall":>9} {"dt64 x CPU":>10} {"dt64 x wall":>11} {"MB out":>7}')
        for r in rows:
            print(f'{r[0]:8} {r[1]:9.0f} {r[2]:9.0f} {r[3]:10.2f} {r[4]:11.2f} {r[5]:7.1f}')
        print(f'best zarr-python loop: {best[0]}; dt64 is {best[3]:.2f}x it per CPU second')
        return
    load = os.getloadavg()[0]
    print(f"""
## Per core: the main job next to zarr-python's chunk loop

Generated by `tools/bench/zarr_python.py --rounds {args.rounds}` (make bench-report); do not edit by hand.

The same {mb:.0f} MB array (v2 `>M8[ns]`, {args.elements // args.chunk} chunks of {8 * args.chunk / 1e6:.1f} MB, written by zarr-python {zarr.__version__} with numcodecs GZip level 5: {src_size / 1e6:.1f} MB; jittered one-a-second timestamps, 0.5 % NaT) re-encoded to v2 `<M8[us]` with Zstd level 3, on one core: zarr-python's API (`zarr`), its chunk loop below zarr's indexing with numcodecs (`codecs`) or with Python's C zlib one call a chunk (`zlib`), and `dt64 transcode --workers 1 --no-sync`. MB of decoded source per second of CPU time (user + system) and of wall time, medians of {args.rounds} rounds; "dt64 ×" is the median of the per-round ratios of the loop's time to dt64's. Every output holds the same values (checked in the first round). NumPy {np.__version__}, numcodecs {numcodecs.__version__}, Python {sys.version.split()[0]}; {time.strftime('%Y-%m-%d')}, load average {load:.1f} at the end.

| contender | MB/s per CPU second | MB/s wall | dt64 × (CPU) | dt64 × (wall) | output MB |
|---|---:|---:|---:|---:|---:|""")
    for r in rows:
        print(f'| {r[0]} | {r[1]:.0f} | {r[2]:.0f} | {r[3]:.2f} | {r[4]:.2f} | {r[5]:.1f} |')
    print(f"""
Per core dt64 does the job {best[3]:.2f}× as fast as zarr-python's fastest loop here (`{best[0]}`), by CPU time.""")


if __name__ == '__main__':
    main()
