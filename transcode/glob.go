package transcode

import (
	"path"
	"strings"
)

// matchGlob reports whether the hierarchy path p ("sub/stamp") matches
// the pattern g: path.Match's syntax within each "/"-separated segment,
// and a segment that is "**" matches any number of segments, none
// included ("sub/**" is every array below sub, "**/time" every array
// named time), as in rsync and .gitignore.
func matchGlob(g, p string) bool {
	return matchSegments(strings.Split(g, "/"), strings.Split(p, "/"))
}

func matchSegments(gs, ps []string) bool {
	for len(gs) > 0 {
		if gs[0] == "**" {
			for len(gs) > 0 && gs[0] == "**" {
				gs = gs[1:]
			}
			if len(gs) == 0 {
				return true
			}
			for i := range ps {
				if matchSegments(gs, ps[i:]) {
					return true
				}
			}
			return false
		}
		if len(ps) == 0 {
			return false
		}
		if ok, _ := path.Match(gs[0], ps[0]); !ok {
			return false
		}
		gs, ps = gs[1:], ps[1:]
	}
	return len(ps) == 0
}

// checkGlob returns path.Match's error for a malformed pattern.
func checkGlob(g string) error {
	for _, s := range strings.Split(g, "/") {
		if _, err := path.Match(s, ""); err != nil {
			return err
		}
	}
	return nil
}
