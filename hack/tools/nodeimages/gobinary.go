package nodeimages

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// goBinary is an image holding one static Go binary and the account it
// runs as: pause, CNPG's operator, CoreDNS.
type goBinary struct {
	image     string
	moduleDir string   // relative to the repository's root
	pkg       string   // what `go build` builds there
	pinned    string   // the module whose version in go.mod is the tag; "" for a fixed tag
	tag       string   // the fixed tag when pinned is ""
	path      string   // the binary's path in the image: the entrypoint
	links     []string // more paths for the binary (symbolic links to path)
	user      string
	uid       int
}

func (g goBinary) name() string { return g.image }

func (g goBinary) prepare(_ context.Context, e *env) (*plan, error) {
	dir := filepath.Join(e.root, g.moduleDir)
	p := &plan{tag: g.tag, in: inputs{}}
	if g.pinned != "" {
		v, err := moduleVersion(filepath.Join(dir, "go.mod"), g.pinned)
		if err != nil {
			return nil, err
		}
		p.tag = strings.TrimPrefix(v, "v")
		// go.sum pins every dependency's content; go.mod the selection.
		for _, f := range []string{"go.mod", "go.sum"} {
			if err := p.in.addFileHash(g.moduleDir+"/"+f, filepath.Join(dir, f)); err != nil {
				return nil, err
			}
		}
	}
	p.build = func(ctx context.Context, work string) (*rootFS, config, error) {
		bin, err := goBuild(ctx, dir, g.pkg, filepath.Join(work, filepath.Base(g.path)))
		if err != nil {
			return nil, config{}, err
		}
		return g.tree(bin), g.config(), nil
	}
	return p, nil
}

func (g goBinary) tree(bin []byte) *rootFS {
	r := newRootFS()
	r.accounts(g.user, g.uid, g.uid, "/home/"+g.user)
	r.File(g.path, 0o755, bin)
	_ = r.Chown(g.path, g.uid, g.uid) // just added
	for _, l := range g.links {
		r.Symlink(l, g.path)
	}
	r.Dir("/tmp", 0o1777, 0, 0)
	return r
}

func (g goBinary) config() config {
	return config{User: fmt.Sprintf("%d:%d", g.uid, g.uid), Entrypoint: []string{g.path}, WorkingDir: "/"}
}

// moduleVersion reads the version go.mod requires of module.
func moduleVersion(gomod, module string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "require "))
		if len(fields) >= 2 && fields[0] == module {
			return fields[1], nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s does not require %s", gomod, module)
}
