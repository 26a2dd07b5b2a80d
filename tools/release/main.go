// Command release publishes this repository's Go modules into a
// file:// module proxy exactly as a release would: each module version is
// zipped by golang.org/x/mod/zip from the git revision it names, with the
// .info and .mod files the GOPROXY protocol serves.
//
//	release -dir DIR [-rev REV]
//
// It publishes every published module (the core library, the command, the
// object stores and the Arrow bridge) at the pseudo-version of REV
// (default HEAD), answers the queries @HEAD and @latest with that version,
// and publishes every sibling version those go.mod files require, found
// in the repository's history by the commit each pseudo-version names.
// It prints the version of REV.
//
// Point GOPROXY at file://DIR (with GONOSUMDB covering the modules) and
// the go command resolves the siblings as it would from a public proxy.
// tools/release/check.sh uses it for `make release-check`.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// published are the module directories a release publishes, relative to
// the repository root. asm/ (the generators) and tools/ are not.
var published = []string{".", "cmd/dt64", "objstore", "zarrow"}

func main() {
	dir := flag.String("dir", "", "the proxy directory to write (required)")
	rev := flag.String("rev", "HEAD", "the git revision to publish")
	only := flag.String("only", "", "publish only these module directories (comma-separated), and what they require")
	flag.Parse()
	if *dir == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: release -dir DIR [-rev REV]")
		os.Exit(2)
	}
	if *only != "" {
		published = strings.Split(*only, ",")
	}
	v, err := run(*dir, *rev)
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
	fmt.Println(v)
}

type repo struct {
	root  string
	paths map[string]string // module path -> directory in the repository
	done  map[module.Version]bool
	proxy string
}

func run(dir, rev string) (string, error) {
	root, err := git(".", "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", err
	}
	commit, err := git(root, "rev-parse", "--verify", rev+"^{commit}")
	if err != nil {
		return "", err
	}
	// zip.CreateFromVCS wants the directory that holds .git itself; a
	// linked worktree has a .git file, so archive from the main worktree,
	// which shares every commit.
	if common, err := git(root, "rev-parse", "--path-format=absolute", "--git-common-dir"); err == nil && filepath.Base(common) == ".git" {
		root = filepath.Dir(common)
	}
	r := &repo{root: root, paths: map[string]string{}, done: map[module.Version]bool{}, proxy: dir}
	version, stamp, err := pseudoVersion(root, commit)
	if err != nil {
		return "", err
	}
	for _, d := range published {
		mf, err := r.goMod(commit, d)
		if err != nil {
			if d == "." {
				return "", err
			}
			continue // not a module yet at this revision
		}
		r.paths[mf.Module.Mod.Path] = d
	}
	for p := range r.paths {
		if err := r.publish(module.Version{Path: p, Version: version}, commit); err != nil {
			return "", err
		}
		// The queries a user types: go get M@HEAD, go install M@latest.
		info, _ := json.Marshal(map[string]any{"Version": version, "Time": stamp})
		// The go command escapes a query as it does a version ("!h!e!a!d").
		head, _ := module.EscapeVersion("HEAD")
		if err := r.write(p, "@v/"+head+".info", info); err != nil {
			return "", err
		}
		if err := r.write(p, "@latest", info); err != nil {
			return "", err
		}
	}
	return version, nil
}

// publish writes m's .info, .mod and .zip from commit, then every sibling
// version m's go.mod requires.
func (r *repo) publish(m module.Version, commit string) error {
	if r.done[m] {
		return nil
	}
	r.done[m] = true
	d := r.paths[m.Path]
	mf, err := r.goMod(commit, d)
	if err != nil {
		return err
	}
	if mf.Module.Mod.Path != m.Path {
		return fmt.Errorf("%s at %.12s is module %s, not %s", d, commit, mf.Module.Mod.Path, m.Path)
	}
	for _, rp := range mf.Replace {
		// A user's go get ignores it and go install refuses the module:
		// check.sh fails a release whose go.mod has one.
		if modfile.IsDirectoryPath(rp.New.Path) {
			fmt.Fprintf(os.Stderr, "release: warning: %s at %.12s replaces %s with the directory %s\n", path.Join(d, "go.mod"), commit, rp.Old.Path, rp.New.Path)
		}
	}
	_, stamp, err := pseudoVersion(r.root, commit)
	if err != nil {
		return err
	}
	info, _ := json.Marshal(map[string]any{"Version": m.Version, "Time": stamp})
	if err := r.write(m.Path, "@v/"+m.Version+".info", info); err != nil {
		return err
	}
	raw, err := git(r.root, "show", commit+":"+path.Join(d, "go.mod"))
	if err != nil {
		return err
	}
	if err := r.write(m.Path, "@v/"+m.Version+".mod", []byte(raw+"\n")); err != nil {
		return err
	}
	var zbuf bytes.Buffer
	sub := d
	if sub == "." {
		sub = ""
	}
	if err := modzip.CreateFromVCS(&zbuf, m, r.root, commit, sub); err != nil {
		return fmt.Errorf("zip %s@%s: %w", m.Path, m.Version, err)
	}
	if err := r.write(m.Path, "@v/"+m.Version+".zip", zbuf.Bytes()); err != nil {
		return err
	}
	if err := r.write(m.Path, "@v/list", nil); err != nil { // pseudo-versions are never listed
		return err
	}
	for _, req := range mf.Require {
		if _, ours := r.paths[req.Mod.Path]; !ours {
			continue
		}
		c, err := r.commitOf(req.Mod)
		if err != nil {
			return fmt.Errorf("%s@%s requires %s@%s: %w", m.Path, m.Version, req.Mod.Path, req.Mod.Version, err)
		}
		if err := r.publish(req.Mod, c); err != nil {
			return err
		}
	}
	return nil
}

// commitOf finds the commit a sibling's version names: the tag, or the
// revision inside a pseudo-version, which must be a commit of this
// repository whose time matches the version's.
func (r *repo) commitOf(m module.Version) (string, error) {
	if !module.IsPseudoVersion(m.Version) {
		tag := m.Version
		if d := r.paths[m.Path]; d != "." {
			tag = d + "/" + m.Version
		}
		return git(r.root, "rev-parse", "--verify", tag+"^{commit}")
	}
	short, err := module.PseudoVersionRev(m.Version)
	if err != nil {
		return "", err
	}
	c, err := git(r.root, "rev-parse", "--verify", "--quiet", short+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("no commit %s in this repository", short)
	}
	want, _, err := pseudoVersion(r.root, c)
	if err != nil {
		return "", err
	}
	if want != m.Version {
		return "", fmt.Errorf("commit %s has the pseudo-version %s", short, want)
	}
	return c, nil
}

func (r *repo) goMod(commit, d string) (*modfile.File, error) {
	name := path.Join(d, "go.mod")
	raw, err := git(r.root, "show", commit+":"+name)
	if err != nil {
		return nil, err
	}
	return modfile.Parse(name, []byte(raw), nil)
}

func (r *repo) write(modPath, name string, data []byte) error {
	esc, err := module.EscapePath(modPath)
	if err != nil {
		return err
	}
	p := filepath.Join(r.proxy, filepath.FromSlash(esc), filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// pseudoVersion is the v0.0.0 pseudo-version of commit (the repository
// has no release tag yet), and the commit time it encodes.
func pseudoVersion(root, commit string) (string, time.Time, error) {
	ct, err := git(root, "show", "-s", "--format=%ct", commit)
	if err != nil {
		return "", time.Time{}, err
	}
	sec, err := strconv.ParseInt(ct, 10, 64)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("commit time of %s: %w", commit, err)
	}
	t := time.Unix(sec, 0).UTC()
	return module.PseudoVersion("v0", "", t, commit[:12]), t, nil
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}
