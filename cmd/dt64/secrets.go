package main

import (
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
)

// Credentials can reach dt64 inside a URL (s3://KEY:SECRET@bucket/x,
// https://user:password@host/x, a presigned ?X-Amz-Signature=...) or an
// endpoint's query string. Every message names the store by a redacted
// URL, but an error of an SDK or of net/http may quote the URL it was
// given. So whatever the command prints goes through a redactor that
// replaces each such secret, found in the arguments and the environment,
// by "xxxxx": nothing a user types as a credential is printed back.

// minSecret is the shortest credential replaced on its own: a shorter one
// (a user name "u") would garble the output; the whole "user:pass@" and
// "?query" are replaced whatever their length.
const minSecret = 6

// secretsIn returns the credential strings of the command line args and
// of the environment, longest first.
func secretsIn(args []string) []string {
	var out []string
	add := func(s string, minLen int) {
		if len(s) >= minLen && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	urls := slices.Clone(args)
	for _, env := range []string{"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"} {
		urls = append(urls, os.Getenv(env))
	}
	for _, a := range urls {
		_, rest, ok := strings.Cut(a, "://")
		if !ok {
			continue
		}
		host, _, _ := strings.Cut(rest, "/")
		if at := strings.LastIndex(host, "@"); at >= 0 {
			userinfo := host[:at]
			add(userinfo+"@", 1)
			user, pass, _ := strings.Cut(userinfo, ":")
			add(pass, minSecret)
			add(user, minSecret)
			if u, err := url.PathUnescape(pass); err == nil {
				add(u, minSecret)
			}
		}
		if _, query, ok := strings.Cut(rest, "?"); ok {
			query, _, _ = strings.Cut(query, "#")
			add(query, 1)
			for _, kv := range strings.Split(query, "&") {
				_, v, _ := strings.Cut(kv, "=")
				add(v, minSecret)
				if u, err := url.QueryUnescape(v); err == nil {
					add(u, minSecret)
				}
			}
		}
	}
	for _, env := range []string{"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"} {
		add(os.Getenv(env), minSecret)
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// redactor replaces secrets in text.
type redactor struct{ r *strings.Replacer }

func newRedactor(secrets []string) redactor {
	if len(secrets) == 0 {
		return redactor{}
	}
	var pairs []string
	for _, s := range secrets {
		if strings.HasSuffix(s, "@") { // user information: the host stays readable
			pairs = append(pairs, s, "xxxxx@")
			continue
		}
		pairs = append(pairs, s, "xxxxx")
	}
	return redactor{strings.NewReplacer(pairs...)}
}

func (r redactor) String(s string) string {
	if r.r == nil {
		return s
	}
	return r.r.Replace(s)
}

// Writer returns w with every write redacted (w itself when there is no
// secret). dt64 prints a line per write (fmt.Fprintf), so a secret is
// never split between two writes.
func (r redactor) Writer(w io.Writer) io.Writer {
	if r.r == nil {
		return w
	}
	return &redactingWriter{w: w, r: r}
}

// dataWriter is w for data rather than messages (cast's elements on
// stdout): never rewritten.
func dataWriter(w io.Writer) io.Writer {
	if rw, ok := w.(*redactingWriter); ok {
		return rw.w
	}
	return w
}

type redactingWriter struct {
	mu sync.Mutex
	w  io.Writer
	r  redactor
}

func (w *redactingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := io.WriteString(w.w, w.r.String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
