package nodeimages

import (
	"context"
	"fmt"
)

// recipe is one image: how to learn its tag and inputs cheaply, and how to
// build it when no archive for those inputs exists yet.
type recipe interface {
	name() string
	prepare(ctx context.Context, e *env) (*plan, error)
}

// repository is the image's repository under the registry prefix: its
// name, unless it shares another image's repository under a tag of its
// own (PostgreSQL's majors: CNPG reads the major from the tag).
func repository(rc recipe) string {
	if s, ok := rc.(interface{ repository() string }); ok {
		return s.repository()
	}
	return rc.name()
}

// plan is a recipe's answer for this machine: the image's tag and inputs,
// and the build, which may use what prepare found.
type plan struct {
	tag   string
	in    inputs
	build func(ctx context.Context, work string) (*rootFS, config, error)
}

// env is what every recipe may read.
type env struct {
	root     string // the repository's root
	cacheDir string // downloads and the private apt state
}

// accounts writes /etc/passwd and /etc/group naming root and the image's
// user, so that tools inside the image (and postgres itself, which looks
// its user up) find a name for the uid.
func (r *rootFS) accounts(user string, uid, gid int, home string) {
	r.File("/etc/passwd", 0o644, fmt.Appendf(nil,
		"root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:%s:/sbin/nologin\n", user, uid, gid, user, home))
	r.File("/etc/group", 0o644, fmt.Appendf(nil, "root:x:0:\n%s:x:%d:\n", user, gid))
}
