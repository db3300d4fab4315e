package nodeimages

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// copyTree adds the tree at host path root+dir to the image at dir,
// keeping symlinks as links and modes' permission bits; files become
// root-owned. skip, when it says yes for an image path, leaves that file
// or directory out.
func (r *rootFS) copyTree(root, dir string, skip func(string) bool) error {
	return filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		img := clean(filepath.ToSlash(rel))
		if skip != nil && skip(img) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		return r.copyEntry(p, img, d)
	})
}

// copyEntry adds the host file, directory or link p at image path img.
func (r *rootFS) copyEntry(p, img string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		return err
	}
	switch {
	case d.IsDir():
		r.Dir(img, int64(info.Mode().Perm()), 0, 0)
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		r.Symlink(img, target)
	case info.Mode().IsRegular():
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		r.File(img, int64(info.Mode().Perm()), data)
	default:
		return fmt.Errorf("%s: neither file, directory nor symlink (%s)", p, info.Mode().Type())
	}
	return nil
}

// copyFile adds the host file p with the symlinks that lead to it. p's
// directory is resolved first: on a merged-/usr host /lib is a link to
// usr/lib, and the image keeps its files under /usr only (its own /lib
// link says the same), so each file has one path in the image.
func (r *rootFS) copyFile(p string) error {
	p, err := canonicalDir(p)
	if err != nil {
		return err
	}
	for hops := 0; hops < 16; hops++ {
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			return r.copyEntry(p, p, fs.FileInfoToDirEntry(info))
		}
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		r.Symlink(p, target)
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		if p, err = canonicalDir(target); err != nil {
			return err
		}
	}
	return fmt.Errorf("%s: too many symlinks", p)
}

// canonicalDir resolves the symlinks of p's directory, not of p itself.
func canonicalDir(p string) (string, error) {
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", p, err)
	}
	return filepath.Join(dir, filepath.Base(p)), nil
}
