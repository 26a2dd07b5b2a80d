// Command crossvet type-checks and vets Go packages, tests included, for
// other targets than the host's (GOOS/GOARCH and build tags), from
// source: it compiles nothing.
//
//	crossvet [-tags list] -target goos/goarch[,goos/goarch...] packages...
//
// It loads the packages and every dependency from source with go/packages
// (the go command only lists the files each target selects) and runs go
// vet's analyzers on them (vetSuite, Go 1.26's list). A type error or a
// diagnostic in any target fails it, named with its target.
//
// Why not GOOS=... go vet: vet needs every dependency compiled for the
// target first. On a fresh CI machine, whose build cache is empty, that
// is the standard library and every dependency (arrow-go, the AWS SDK,
// cobra, gonum/plot for the command) compiled once more per target for
// nothing but type information: about 250 CPU seconds a target for the
// command, against about 20 here. Targets whose tests run (linux/amd64,
// arm64 and s390x under qemu) keep go vet, as their compiled packages are
// then reused by the tests.
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/analysis/passes/appends"
	"golang.org/x/tools/go/analysis/passes/asmdecl"
	"golang.org/x/tools/go/analysis/passes/assign"
	"golang.org/x/tools/go/analysis/passes/atomic"
	"golang.org/x/tools/go/analysis/passes/bools"
	"golang.org/x/tools/go/analysis/passes/buildtag"
	"golang.org/x/tools/go/analysis/passes/cgocall"
	"golang.org/x/tools/go/analysis/passes/composite"
	"golang.org/x/tools/go/analysis/passes/copylock"
	"golang.org/x/tools/go/analysis/passes/defers"
	"golang.org/x/tools/go/analysis/passes/directive"
	"golang.org/x/tools/go/analysis/passes/errorsas"
	"golang.org/x/tools/go/analysis/passes/framepointer"
	"golang.org/x/tools/go/analysis/passes/hostport"
	"golang.org/x/tools/go/analysis/passes/httpresponse"
	"golang.org/x/tools/go/analysis/passes/ifaceassert"
	"golang.org/x/tools/go/analysis/passes/loopclosure"
	"golang.org/x/tools/go/analysis/passes/lostcancel"
	"golang.org/x/tools/go/analysis/passes/nilfunc"
	"golang.org/x/tools/go/analysis/passes/printf"
	"golang.org/x/tools/go/analysis/passes/shift"
	"golang.org/x/tools/go/analysis/passes/sigchanyzer"
	"golang.org/x/tools/go/analysis/passes/slog"
	"golang.org/x/tools/go/analysis/passes/stdmethods"
	"golang.org/x/tools/go/analysis/passes/stdversion"
	"golang.org/x/tools/go/analysis/passes/stringintconv"
	"golang.org/x/tools/go/analysis/passes/structtag"
	"golang.org/x/tools/go/analysis/passes/testinggoroutine"
	"golang.org/x/tools/go/analysis/passes/tests"
	"golang.org/x/tools/go/analysis/passes/timeformat"
	"golang.org/x/tools/go/analysis/passes/unmarshal"
	"golang.org/x/tools/go/analysis/passes/unreachable"
	"golang.org/x/tools/go/analysis/passes/unsafeptr"
	"golang.org/x/tools/go/analysis/passes/unusedresult"
	"golang.org/x/tools/go/analysis/passes/waitgroup"
	"golang.org/x/tools/go/packages"
)

func main() {
	targets := flag.String("target", "", "comma-separated goos/goarch pairs to check, e.g. darwin/arm64,windows/amd64")
	tags := flag.String("tags", "", "comma-separated build tags, as go vet -tags")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: crossvet [-tags list] -target goos/goarch[,...] packages...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *targets == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	failed := false
	for _, t := range strings.Split(*targets, ",") {
		goos, goarch, ok := strings.Cut(t, "/")
		if !ok || goos == "" || goarch == "" {
			fmt.Fprintf(os.Stderr, "crossvet: target %q is not goos/goarch\n", t)
			os.Exit(2)
		}
		n, err := check(goos, goarch, *tags, flag.Args())
		if err != nil {
			fmt.Fprintf(os.Stderr, "crossvet: %s: %v\n", t, err)
			os.Exit(1)
		}
		if n > 0 {
			fmt.Fprintf(os.Stderr, "crossvet: %s: %d problems\n", t, n)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// check loads patterns for one target and prints its type errors and vet
// diagnostics; it returns how many there were.
func check(goos, goarch, tags string, patterns []string) (int, error) {
	cfg := &packages.Config{
		Mode:  packages.LoadAllSyntax,
		Tests: true,
		// cgo off: a cross target has no C toolchain here, and with cgo
		// the go command would run it for the host's packages.
		Env:        append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0"),
		BuildFlags: []string{"-tags=" + tags},
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return 0, err
	}
	if len(pkgs) == 0 {
		return 0, fmt.Errorf("no packages match %s", strings.Join(patterns, " "))
	}
	target := goos + "/" + goarch
	if tags != "" {
		target += " -tags " + tags
	}
	// A file is in a package and in its test variant: report each
	// problem once.
	seen := map[string]bool{}
	report := func(msg string) {
		if !seen[msg] {
			seen[msg] = true
			fmt.Printf("%s: %s\n", target, msg)
		}
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			report(e.Error())
		}
	})
	if len(seen) > 0 {
		return len(seen), nil // the analyzers need well-typed packages
	}
	g, err := checker.Analyze(vetSuite, pkgs, nil)
	if err != nil {
		return 0, err
	}
	var msgs []string
	for act := range g.All() {
		if !act.IsRoot {
			continue
		}
		if act.Err != nil {
			msgs = append(msgs, fmt.Sprintf("%s: %s: %v", act.Package.PkgPath, act.Analyzer.Name, act.Err))
		}
		for _, d := range act.Diagnostics {
			msgs = append(msgs, fmt.Sprintf("%s: %s (%s)", act.Package.Fset.Position(d.Pos), d.Message, act.Analyzer.Name))
		}
	}
	sort.Strings(msgs)
	for _, m := range msgs {
		report(m)
	}
	return len(seen), nil
}

// vetSuite is go vet's analyzers, as Go 1.26's cmd/vet lists them.
var vetSuite = []*analysis.Analyzer{
	appends.Analyzer,
	asmdecl.Analyzer,
	assign.Analyzer,
	atomic.Analyzer,
	bools.Analyzer,
	buildtag.Analyzer,
	cgocall.Analyzer,
	composite.Analyzer,
	copylock.Analyzer,
	defers.Analyzer,
	directive.Analyzer,
	errorsas.Analyzer,
	// fieldalignment.Analyzer omitted: too noisy
	framepointer.Analyzer,
	httpresponse.Analyzer,
	hostport.Analyzer,
	ifaceassert.Analyzer,
	loopclosure.Analyzer,
	lostcancel.Analyzer,
	nilfunc.Analyzer,
	printf.Analyzer,
	// shadow.Analyzer omitted: too noisy
	shift.Analyzer,
	sigchanyzer.Analyzer,
	slog.Analyzer,
	stdmethods.Analyzer,
	stdversion.Analyzer,
	stringintconv.Analyzer,
	structtag.Analyzer,
	tests.Analyzer,
	testinggoroutine.Analyzer,
	timeformat.Analyzer,
	unmarshal.Analyzer,
	unreachable.Analyzer,
	unsafeptr.Analyzer,
	unusedresult.Analyzer,
	waitgroup.Analyzer,
}
