package nodeimages

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// multiarchLib is where Debian puts amd64's shared libraries.
const multiarchLib = "/usr/lib/x86_64-linux-gnu"

// libraryDirs are where the dynamic loader looks by default, as the image
// spells them (its /lib and /lib64 are links into /usr).
var libraryDirs = []string{multiarchLib, "/usr/lib", "/usr/lib64"}

var elfMagic = []byte("\x7fELF")

// checkNeeded refuses a tree in which an ELF file needs (DT_NEEDED) a
// library the tree lacks. For an image of another Debian release than the
// host's, ldd cannot tell: it runs the host's loader on the host's
// libraries.
func (r *rootFS) checkNeeded() error {
	var missing []string
	for p, e := range r.entries {
		if e.kind != fileEntry || !bytes.HasPrefix(e.data, elfMagic) {
			continue
		}
		f, err := elf.NewFile(bytes.NewReader(e.data))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		needed, err := f.ImportedLibraries()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		origin, err := runpathDirs(f, path.Dir(p))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		for _, lib := range needed {
			if !r.findLibrary(lib, origin) {
				missing = append(missing, p+" needs "+lib)
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("libraries missing from the image: %s", strings.Join(missing, "; "))
	}
	return nil
}

// runpathDirs are the file's DT_RUNPATH and DT_RPATH directories, $ORIGIN
// resolved against dir.
func runpathDirs(f *elf.File, dir string) ([]string, error) {
	var out []string
	for _, tag := range []elf.DynTag{elf.DT_RUNPATH, elf.DT_RPATH} {
		vals, err := f.DynString(tag)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			for _, d := range strings.Split(v, ":") {
				out = append(out, clean(strings.ReplaceAll(d, "$ORIGIN", dir)))
			}
		}
	}
	return out, nil
}

// findLibrary says whether name resolves, through links, to a file in
// one of dirs or the default directories.
func (r *rootFS) findLibrary(name string, dirs []string) bool {
	for _, d := range append(dirs, libraryDirs...) {
		if r.resolves(d + "/" + name) {
			return true
		}
	}
	return false
}

// resolves follows p's links inside the tree to a regular file.
func (r *rootFS) resolves(p string) bool {
	for hops := 0; hops < 16; hops++ {
		e, ok := r.entries[clean(p)]
		switch {
		case !ok:
			return false
		case e.kind == fileEntry:
			return true
		case e.kind != linkEntry:
			return false
		case strings.HasPrefix(e.target, "/"):
			p = e.target
		default:
			p = path.Join(path.Dir(clean(p)), e.target)
		}
	}
	return false
}

// hostELFFiles lists the regular ELF files under host directory dir
// that skip does not leave out.
func hostELFFiles(dir string, skip func(string) bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skip(p) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		head := make([]byte, len(elfMagic))
		if n, _ := f.Read(head); n == len(head) && bytes.Equal(head, elfMagic) {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}
