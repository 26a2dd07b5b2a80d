# dt64 — see README.md. Every target works on a fresh clone; `.ci/run`
# installs the Debian packages the tests need, then runs `make test`.

GO      ?= go
PYTHON  ?= /usr/bin/python3
PKGS    := ./...
# Four published modules, developed together through go.work: the core
# library (.), the command (cmd/dt64: arrow-go, cobra, plotting), the
# object stores (objstore: the AWS SDK) and the Arrow bridge (zarrow:
# arrow-go). Each go.mod requires its siblings at a pseudo-version of a
# commit of this repository, as a user's go get does; the workspace
# builds them from the tree. MODPKGS are the packages every test target
# runs, of three modules in one go command (the workspace lets it build
# and test them together, so the two cores are never idle between
# modules); zarrow has a target of its own (test-arrow).
MODPKGS := ./... ./cmd/dt64/... ./objstore/...

# The siblings' required versions are served by a file:// module proxy
# that tools/release builds from this repository's history, as the
# public proxy will once the module is published (the go command reads
# their go.mod files even in a workspace). Every target that runs the go
# command depends on `proxy`.
RELEASE_DIR  := $(CURDIR)/.release
export GOPROXY   := file://$(RELEASE_DIR)/proxy,$(shell $(GO) env GOPROXY)
export GONOSUMDB := github.com/zarr-dt64/dt64
# The tool modules (asm/, tools/release, tools/crossvet) are not in the
# workspace.
TOOL_GO  = GOWORK=off $(GO)
CROSSVET = $(RELEASE_DIR)/bin/crossvet

# On a CPU that has them, the tests must prove the SIMD paths were selected:
# a dispatch bug that silently fell back to generic code would otherwise pass.
CPUFLAGS := $(shell grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
ifneq ($(and $(findstring avx512f,$(CPUFLAGS)),$(findstring avx512dq,$(CPUFLAGS)),$(findstring avx512bw,$(CPUFLAGS)),$(findstring avx512vl,$(CPUFLAGS))),)
DT64_REQUIRE ?= avx512,avx2
else ifneq ($(findstring avx2,$(CPUFLAGS)),)
DT64_REQUIRE ?= avx2
endif
export DT64_REQUIRE

.PHONY: proxy bump-siblings release-check check test-haswell bench-report engine-data all build test fmt-check tidy-check test-asm js-deps test-arrow vet unit unit-native unit-race test-purego test-arm64 test-s390x generate check-generate \
        versitygw test-s3 bench-s3 bench bench-engines bench-go bench-numpy bench-zarr-python fuzz fuzz-short demo oracle cf-vectors xarray-fixtures clean

all: build

## proxy: publish the sibling versions the go.mod files require (and HEAD)
## into .release/proxy.
proxy:
	@cd tools/release && $(TOOL_GO) run . -dir $(RELEASE_DIR)/proxy >/dev/null

## release-check: publish the modules into a file:// proxy as a release
## would, then, outside the repository, go get every library module at
## HEAD and build a program that imports every public package, go install
## the command at HEAD, and check that the core packages pull in no cloud
## SDK, arrow-go, plotting library or cobra.
release-check:
	tools/release/check.sh

## bump-siblings: require every sibling module at the pseudo-version of
## HEAD (committed and clean), then tidy; commit the result. Run it after
## a change to the core that the other modules use, so that go install
## of the command at the next commit builds against it (release-check
## proves it does).
bump-siblings: proxy
	@test -z "$$(git status --porcelain --untracked-files=no)" || { echo "bump-siblings: commit first: the siblings are required at HEAD's pseudo-version"; exit 1; }
	@v=$$(cd tools/release && $(TOOL_GO) run . -dir $(RELEASE_DIR)/proxy) && echo "requiring the siblings at $$v" && \
	for m in zarrow objstore cmd/dt64; do \
		(cd $$m && for p in $$(sed -n 's/^\(require\)\{0,1\}[[:space:]]*\(github.com\/zarr-dt64\/dt64[^[:space:]]*\) v.*/\2/p' go.mod); do \
			GOWORK=off $(GO) mod edit -require=$$p@$$v || exit 1; done && GOWORK=off $(GO) mod tidy) || exit 1; \
	done

# The go command leaves the VCS revision out of a workspace build unless
# asked; dt64 --version prints it. Only in a clone (.git a directory): a
# linked worktree or a tarball has none Go can read.
BUILDVCS := $(shell test -d .git && echo -buildvcs=true)
build: proxy
	cd cmd/dt64 && $(GO) build $(BUILDVCS) -o ../../bin/dt64 .

## test: everything CI checks (formatting, vet on every target architecture,
## race-enabled tests, the pure-Go build, generated code up to date). The
## quick checks run first, one after another; then the test stages run in
## two lanes at once (tools/stages.sh: most stages end in one long test
## binary that keeps one core of two busy). Each stage's duration is
## printed, so CI time is seen where it goes. The S3 server, which both
## lanes' tests use (cmd/dt64 and objstore, natively and under the race
## detector), and the npm packages come first (.ci/run builds the server
## in the background while apt installs the rest, so here it is found
## built).
TEST_FIRST := fmt-check tidy-check vet check-generate js-deps versitygw
TEST_LANE1 := unit-race test-s390x
TEST_LANE2 := unit-native test-asm test-arrow test-purego test-haswell test-arm64 fuzz-short
test: proxy
	@MAKE="$(MAKE)" tools/stages.sh "$(TEST_FIRST)" "$(TEST_LANE1)" "$(TEST_LANE2)"

## check: the quick loop while working (about 3 minutes on 2 cores):
## gofmt, go vet and go test -short natively for every module. make test
## stays the full gate.
check: proxy fmt-check
	$(GO) vet $(MODPKGS) ./zarrow/...
	$(GO) test -short -count=1 $(MODPKGS) ./zarrow/...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

## tidy-check: every module's go.mod and go.sum say exactly what the code imports.
tidy-check: proxy
	@for m in . cmd/dt64 objstore zarrow; do \
		(cd $$m && GOWORK=off $(GO) mod tidy -diff) || { echo "$$m/go.mod/go.sum are not tidy: run 'cd $$m && GOWORK=off go mod tidy' (with make's GOPROXY) and commit"; exit 1; }; \
	done
	@cd asm && $(TOOL_GO) mod tidy -diff || { echo "asm/go.mod/go.sum are not tidy: run 'cd asm && GOWORK=off go mod tidy' and commit"; exit 1; }
	@for m in tools/release tools/crossvet; do \
		(cd $$m && $(TOOL_GO) mod tidy -diff) || { echo "$$m/go.mod/go.sum are not tidy"; exit 1; }; \
	done
	@! git grep -nE '=>[[:space:]]*\.\.?(/|[[:space:]]|$$)' -- '*go.mod' || { echo "a committed go.mod replaces a module with a directory: go get and go install ignore or refuse it (go.work is for local development)"; exit 1; }

## vet: every module natively and on big-endian s390x (whose test run
## builds them all anyway); on arm64, the core module, the only one with
## code that arm64 selects (its NEON kernels). Vetting the command,
## objstore and zarrow there too would compile arrow-go, the AWS SDK,
## cobra and gonum/plot once more for nothing but the same source. Its
## first step proves they stay that way: no file outside kernels/ and
## internal/inflate's amd64 loop may be chosen by architecture or by the
## purego tag (test-arm64 and test-purego rely on it too). The targets whose tests do not
## run here are checked by crossvet (tools/crossvet) instead of go vet:
## the pure-Go build (-tags purego) of the core, and every module for
## macOS on Apple silicon and for Windows, tests included, whose code
## paths differ from Linux's (the directory store without openat2 and
## syncfs, the command's files without flock or mmap). crossvet
## type-checks and runs go vet's analyzers from source; go vet would
## compile the standard library and every dependency for each such
## target first, only for their types: on a fresh CI machine that was
## about 250 CPU seconds a target for the command, against about 20.
ARCH_RE := (amd64|arm64|s390x|386|arm|ppc64|ppc64le|mips|mipsle|mips64|mips64le|riscv64|loong64|wasm)
vet: proxy
	cd asm && $(TOOL_GO) vet ./...
	cd tools/release && $(TOOL_GO) vet ./...
	cd tools/crossvet && $(TOOL_GO) vet ./...
	@f=$$({ git ls-files | grep -E '_$(ARCH_RE)(_test)?\.go$$|\.s$$'; git grep -lE '^//go:build.*\b($(ARCH_RE)|purego)\b' -- '*.go'; } | \
	     grep -vE '^(kernels|asm)/|^tools/crossvet/testdata/|^internal/inflate/block_(amd64\.(go|s)|other\.go)$$'); \
	[ -z "$$f" ] || { echo "vet: these files are chosen by architecture or purego, outside kernels/ and internal/inflate's amd64 loop: only the core is vetted on arm64, and test-arm64 and test-purego run only those packages (see ARM64_PKGS and vet in the Makefile):"; echo "$$f"; exit 1; }
	cd zarrow && $(GO) vet ./... && GOARCH=s390x $(GO) vet ./...
	$(GO) vet $(MODPKGS)
	GOARCH=s390x $(GO) vet $(MODPKGS)
	GOARCH=arm64 $(GO) vet $(PKGS)
	cd tools/crossvet && $(TOOL_GO) build -o $(CROSSVET) .
	$(CROSSVET) -tags purego -target linux/amd64 $(PKGS)
	$(CROSSVET) -target darwin/arm64,windows/amd64 $(MODPKGS) ./zarrow/...

## unit: every package of every module natively, in full (unit-native),
## and again with the race detector and -short (unit-race), except those
## that start no goroutine: kernels (its SIMD code is assembly the race
## detector does not instrument, while instrumenting its exhaustive Go
## loops against the generic twins took about 400 s), internal/inflate
## (its differential loops took 200 s under the race detector, 13 s
## without), cf, dtype, blosc and internal/pyjson. Their concurrent use
## (a compiled decoder shared by workers) is raced in the packages that
## run them concurrently: transcode, zarr and the command. -short keeps
## every test under the race detector, concurrency and all, with fewer
## rounds of the heaviest (the fault budgets, kills and resumes, the
## cast oracle); the full rounds run natively, 5-10 times faster: the
## race run in full took 380 CPU s, -short and the native run 210 and
## 125. zarr's allocation tests (ALLOC_TESTS) must run and pass natively:
## the race detector makes sync.Pool drop items at random, so under it
## they check nothing.
NATIVE_PKGS := ./kernels/ ./internal/inflate/ ./cf/ ./dtype/ ./blosc/ ./internal/pyjson/
ALLOC_TESTS := ^(TestReadChunkReusesGrownBuffer|TestReadSizedFromStoredObject|TestWriteChunkRawAllocs|TestRegionReadReusesChunkBuffer)$$
RACE_PKGS = $$($(GO) list $(MODPKGS) | grep -vx $(foreach p,$(NATIVE_PKGS),-e 'github.com/zarr-dt64/dt64/$(patsubst ./%/,%,$(p))'))
unit: unit-native unit-race

# -timeout 30m: the kernels package's full run takes about 4 minutes alone
# on 2 cores, and passed go test's default 10 minutes' hang timeout on a
# machine shared with other work (load 10); a hang is still caught, well
# inside CI's 90 minutes. The emulated runs (test-arm64, test-haswell,
# test-s390x) take it too: under qemu the kernels package passed 10
# minutes at load 12.
unit-native: proxy
	$(GO) test -count=1 -timeout 30m $(MODPKGS)
	@out=$$($(GO) test -count=1 -v -run '$(ALLOC_TESTS)' ./zarr/ 2>&1); rc=$$?; \
	echo "$$out" | grep -E '^(--- |ok|FAIL)'; \
	[ $$rc -eq 0 ] || exit $$rc; \
	[ "$$(echo "$$out" | grep -c '^--- PASS')" -eq 4 ] || { echo "unit-native: want the 4 ALLOC_TESTS to run and pass natively"; exit 1; }

unit-race: proxy
	$(GO) test -race -short -count=1 $(RACE_PKGS)

## test-asm: the generators' own tests (the asm/ module is separate, so
## `go test ./...` never enters it): every hand-encoded arm64 WORD is
## checked against GNU as. Also crossvet's (tools/crossvet, separate too):
## each target it checks must report the problem only that target sees.
test-asm:
	cd asm && $(TOOL_GO) test -count=1 ./...
	cd tools/crossvet && $(TOOL_GO) test -count=1 ./...

## versitygw: build the S3 server the object-store tests start (a real S3
## implementation over a directory, on 127.0.0.1) into the user cache
## directory, once (objstore/s3test says where). In CI a failed build fails.
versitygw: proxy
	cd objstore && $(GO) test -count=1 -run '^TestBuildServer$$' ./s3test

## test-s3: only the object-store tests (S3 and HTTP(S)), natively with -race.
test-s3: versitygw proxy
	cd objstore && $(GO) test -race -count=1 ./...
	cd cmd/dt64 && $(GO) test -race -count=1 -run '^(TestS3|TestHTTP|TestOpenStore)' .

## js-deps: the JavaScript clients of the export tests (DuckDB's
## @duckdb/node-api, apache-arrow), at the versions tools/js pins, from the
## npm registry.
js-deps:
	cd tools/js && npm ci --no-audit --no-fund --loglevel=error

## test-arrow: the zarrow/ module (its own go.mod, so that the core library
## does not depend on arrow-go). It holds no architecture-specific code
## (the kernels it calls are tested on every target above; vet's
## architecture check keeps it so), and building arrow-go again for the
## race detector and for arm64 would cost CI minutes for nothing: one
## native run, and one big-endian run in test-s390x.
test-arrow: proxy
	cd zarrow && $(GO) test -count=1 ./...

## test-purego: the kernels' and internal/inflate's -short tests in the
## pure-Go build, the only packages where the purego tag selects code
## (their generic twins and dispatch; vet compiles every package with
## the tag). The other packages
## would run the same generic kernels as on s390x, which has no SIMD, so
## test-s390x covers them through the generic code, big-endian. -short
## trims the heaviest loops, as under qemu: here they would compare the
## generic twins with themselves (the native run compares them with every
## SIMD kernel over every length), and each test still covers every case
## kind.
test-purego: proxy
	DT64_REQUIRE= $(GO) test -tags purego -short -count=1 ./kernels/ ./internal/inflate/

## test-arm64: the NEON kernels on arm64 under qemu (QEMU_CPU=cortex-a72:
## a plain ARMv8.0 NEON CPU, no newer extensions), NEON required, with
## every test of the kernels (-short trims the heaviest loops; each test
## still covers every case kind), and zarr, which hands them the
## misaligned pieces of stored zstd blocks. DT64_TEST_EXEC lets tests
## that re-run themselves go through qemu. No other package holds code
## that arm64 selects (vet fails if one does): internal/inflate's
## assembly is amd64's, and on arm64 it runs the pure-Go loop that
## test-purego runs; the rest is the same Go on every target, run
## natively and big-endian on s390x, whose compiler fuses multiply-adds
## into FMA as arm64's does (the float CF code's one target-dependent
## behaviour in Go). Running them here too took about 120 CPU s of CI.
ARM64_PKGS := ./kernels/ ./zarr/
test-arm64: proxy
	QEMU_CPU=cortex-a72 DT64_REQUIRE=neon DT64_TEST_IMPLS=neon DT64_TEST_EXEC=qemu-aarch64-static GOARCH=arm64 \
		$(GO) test -short -count=1 -timeout 30m -exec qemu-aarch64-static $(ARM64_PKGS)

## test-haswell: on an AVX2 CPU without AVX-512 (qemu's Haswell model;
## qemu warns of the few system features its TCG lacks), the real cpuid
## dispatch must choose the AVX2 kernels (TestRequiredImplementations
## with DT64_REQUIRE=avx2), and each family of them runs once more there
## (HASWELL_TESTS: the primitives, shuffles, fused transcoder, rescale,
## CF and calendar hooks, each over lengths and tails). That is all this
## run adds: the AVX2 kernels' full tests run natively (every
## implementation the CPU has, AVX2 included), and
## TestAMD64KernelISA reads every generated function's required
## extensions, so a stray AVX-512 instruction in an AVX2 kernel fails
## there even in code no test executes. The kernels' whole -short run
## took about 150 CPU s under qemu. The stage fails unless at least
## HASWELL_MIN tests ran and passed, so a renamed test cannot quietly
## leave the run empty.
HASWELL_TESTS := ^(TestRequiredImplementations|TestSIMD.*|TestShuffle8.*|TestFused(Lengths|Offsets|EveryLane)|TestInPlaceAndOrders|TestRescaleSIMDEdgeEveryLane|TestFloorDivEstKernel|TestFloorDivSIMDClustered|TestCFKernelsLengths|TestCFHooks|TestWidenFloat32Hook|TestCalendarHooks.*|TestHooks.*|TestEntryPointsOffsets)$$
HASWELL_MIN   := 25
test-haswell: proxy
	@out=$$(DT64_REQUIRE=avx2 DT64_TEST_IMPLS=avx2 $(GO) test -short -count=1 -timeout 30m -v -run '$(HASWELL_TESTS)' \
		-exec 'qemu-x86_64-static -cpu Haswell' ./kernels/ 2>&1); rc=$$?; \
	echo "$$out" | grep -E '^(--- |ok|FAIL|panic)|SIGILL|illegal'; \
	[ $$rc -eq 0 ] || exit $$rc; \
	n=$$(echo "$$out" | grep -c '^--- PASS'); \
	[ $$n -ge $(HASWELL_MIN) ] || { echo "test-haswell: $$n tests passed, want HASWELL_MIN=$(HASWELL_MIN) or more (see HASWELL_TESTS)"; exit 1; }; \
	echo "test-haswell: $$n tests passed"

## test-s390x: every package on a big-endian host under qemu, which proves
## no code assumes the host byte order. The tests of the S3 and HTTP
## protocols (retries, faults, kills and resumes against a live server,
## secrets kept out of output) are skipped here: the bytes they move are
## decoded by the same code as a directory store's, which runs here, and
## the protocols hold nothing byte-order dependent; they run natively
## (unit-native) and under the race detector (unit-race). Under qemu they
## were half of cmd/dt64's 157 s. So are the tests that kill processes or
## the machine at random moments and resume (KILL_TESTS): each compares
## the resumed result with an uninterrupted run's on the same host, so a
## byte-order error would be in both and pass; what they prove is the
## durability and resume logic, the same on every target (about 105 s
## under qemu). zarrow runs here too (-short, about 25 s): its Parquet
## pages read Arrow buffers in the host's order and write little-endian,
## and arrow-go is built for s390x for the command anyway.
KILL_TESTS := TestCFKillResume|TestTranscodeKillResume|TestTranscodeGroupKillResume|TestInterruptTwice|TestMachineDeath|TestStoreMachineDeath|TestStoreKilledAndResumed|TestStoreOverwriteKilled
EMU_SKIP := ^(TestS3|TestHTTP|TestNoSecretPrinted|$(KILL_TESTS))
test-s390x: proxy
	DT64_REQUIRE= DT64_TEST_EXEC=qemu-s390x-static GOARCH=s390x \
		$(GO) test -short -count=1 -timeout 30m -skip '$(EMU_SKIP)' -exec qemu-s390x-static $(MODPKGS)
	cd zarrow && DT64_REQUIRE= DT64_TEST_EXEC=qemu-s390x-static GOARCH=s390x \
		$(GO) test -short -count=1 -timeout 30m -exec qemu-s390x-static ./...

## generate: regenerate the assembly: amd64 from the avo programs, arm64
## from the NEON text emitter, all in the separate asm/ module.
generate:
	cd asm && $(TOOL_GO) generate ./... && $(TOOL_GO) run ./neon -kernels ../kernels

## check-generate: regenerate and fail if the committed files differ.
check-generate: generate
	@git diff --exit-code -- kernels/ || { echo "generated assembly is stale: run 'make generate' and commit"; exit 1; }
	@test -z "$$(git ls-files --others --exclude-standard kernels/)" || { echo "untracked generated files in kernels/:"; git ls-files --others --exclude-standard kernels/; exit 1; }

## bench: every kernel and implementation next to copy() of the same bytes
## (dt64 bench), then dt64 cast of a 256 MiB file next to cp of the same
## file, without and with fsync (dt64 bench --cast; BENCH_DIR picks the
## filesystem, default the temporary directory); bench-go: the same kernels
## as Go benchmarks for benchstat; bench-numpy: NumPy on the same
## operations, as a ratio to its own copy; bench-s3: the end-to-end job
## through a local S3 server (versitygw) next to the same job directory to
## directory (medians of 7 rounds).
BENCH_DIR ?= $(or $(TMPDIR),/tmp)
bench: build
	./bin/dt64 bench --rounds 5
	./bin/dt64 bench --cast --rounds 5 --dir $(BENCH_DIR)

## bench-report: measure every kernel (8 MiB and 256 MiB, 5 rounds) and
## write docs/performance.md, with the machine, date, Go version and CPU
## features stated once, then the main job per core next to zarr-python's
## chunk loop (bench-zarr-python's section) and bench-engines' table, then
## quote its 256 MiB kernel table in the README. The docs' figures come
## from here, never from a keyboard.
bench-report: build js-deps engine-data
	./bin/dt64 bench --markdown --sizes 8MiB,256MiB --rounds 5 > docs/performance.md.tmp
	$(PYTHON) tools/bench/zarr_python.py --dt64 bin/dt64 --rounds 5 --markdown >> docs/performance.md.tmp
	echo >> docs/performance.md.tmp
	$(ENGINES) --markdown >> docs/performance.md.tmp
	mv docs/performance.md.tmp docs/performance.md
	$(PYTHON) tools/bench/summary.py docs/performance.md README.md

## bench-engines: dt64 export next to DuckDB (tools/js/bench_engines.mjs):
## export of the demo's 32 Mi datetime64[us] array to Parquet and Arrow
## IPC, DuckDB's COPY of the same rows to Parquet (zstd), DuckDB's range
## query on both files, and the long layout of a 48 × 361 × 720 grid
## (tools/bench/grid.py) next to DuckDB's COPY of the same long table;
## medians of ENGINE_ROUNDS alternated rounds, the targets' ratios, the
## file sizes. The inputs are made once in ENGINE_DIR.
ENGINE_DIR    ?= $(BENCH_DIR)/dt64-bench-engines
ENGINE_ROUNDS ?= 5
ENGINES        = node tools/js/bench_engines.mjs --dt64 ./bin/dt64 --wide $(ENGINE_DIR)/demo/dest.zarr \
                 --long $(ENGINE_DIR)/grid.zarr --dir $(ENGINE_DIR)/out --rounds $(ENGINE_ROUNDS)
bench-engines: build js-deps engine-data
	$(ENGINES)

engine-data: build
	@test -f $(ENGINE_DIR)/demo/dest.zarr/zarr.json || ./bin/dt64 demo $(ENGINE_DIR)/demo >/dev/null
	@test -f $(ENGINE_DIR)/grid.zarr/.zmetadata || $(PYTHON) tools/bench/grid.py $(ENGINE_DIR)/grid.zarr

bench-go: proxy
	$(GO) test -run '^$$' -bench . -count 5 ./kernels/ | tee bench.txt

bench-numpy:
	$(PYTHON) tools/bench/numpy_bench.py --rounds 5

## bench-zarr-python: the main job (256 MiB gzip:5 v2 ns -> zstd:3 us) on one
## core, zarr-python 2.13's chunk loop against dt64 transcode --workers 1
## (needs Debian's python3-zarr; about a minute a round).
bench-zarr-python: build
	$(PYTHON) tools/bench/zarr_python.py --dt64 bin/dt64 --rounds 5

bench-s3: versitygw proxy
	cd objstore && $(GO) test -run '^$$' -bench S3E2E -benchtime 7x .

## fuzz: every fuzz target for FUZZTIME (default 30s) each; fuzz-short:
## one second each (three for internal/inflate's, whose seeds alone take
## about a second), the smoke run `make test` includes. The seed corpora
## run in every `go test`.
fuzz: proxy
	tools/fuzz.sh

fuzz-short: proxy
	tools/fuzz.sh -short

## demo: the main job on an embedded sample.
demo: build
	./bin/dt64 demo

## oracle: regenerate the NumPy test vectors (needs Debian's python3-numpy);
## cf-vectors: the cftime reference dates (needs Debian's python3-cftime).
oracle:
	$(PYTHON) tools/oracle/gen.py testdata/oracle

cf-vectors:
	$(PYTHON) -W ignore tools/cf/gen.py testdata/cf

## xarray-fixtures: CF-encoded time arrays written and decoded by Debian's
## python3-xarray (testdata/xarray), CF durations (testdata/xarray-durations),
## null fill values and missing chunks (testdata/xarray-null-fill), and CF
## bounds without units of their own (testdata/xarray-bounds).
xarray-fixtures:
	$(PYTHON) tools/xarray/cf_sources.py testdata/xarray
	$(PYTHON) tools/xarray/cf_durations.py testdata/xarray-durations
	$(PYTHON) tools/xarray/null_fill.py testdata/xarray-null-fill
	$(PYTHON) tools/xarray/cf_bounds.py testdata/xarray-bounds

clean:
	rm -rf bin bench.txt
