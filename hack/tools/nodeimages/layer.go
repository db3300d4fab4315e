package nodeimages

import (
	"archive/tar"
	"bytes"
	"fmt"
	"path"
	"sort"
	"time"
)

// epoch is every file's modification time and the images' creation time:
// a constant, so that the same inputs give the same digests on any day.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// tarball writes the tree as an uncompressed tar: entries sorted by path
// (a directory comes before what it holds), fixed times, numeric owners
// only (no user names: the image's /etc/passwd is what names them).
func (r *rootFS) tarball() ([]byte, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(r.entries))
	for p := range r.entries {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range paths {
		if err := writeEntry(tw, p, r.entries[p]); err != nil {
			return nil, fmt.Errorf("tar %s: %w", p, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeEntry(tw *tar.Writer, p string, e *entry) error {
	hdr := &tar.Header{
		Name:    p[1:],
		Mode:    e.mode,
		Uid:     e.uid,
		Gid:     e.gid,
		ModTime: epoch,
		Format:  tar.FormatPAX, // long paths (zoneinfo, gconv) need PAX
	}
	switch e.kind {
	case dirEntry:
		hdr.Typeflag, hdr.Name = tar.TypeDir, hdr.Name+"/"
	case linkEntry:
		hdr.Typeflag, hdr.Linkname = tar.TypeSymlink, e.target
	default:
		hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(e.data))
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err := tw.Write(e.data)
	return err
}

// validate refuses a tree in which a path's parent is not a directory
// (say a file added under /lib while /lib is a link): unpacked, such a
// file would land somewhere else or fail.
func (r *rootFS) validate() error {
	for p := range r.entries {
		if p == "/" {
			return fmt.Errorf("the root itself is not an entry")
		}
		if dir := path.Dir(p); dir != "/" && r.entries[dir].kind != dirEntry {
			return fmt.Errorf("%s: parent %s is not a directory", p, dir)
		}
	}
	return nil
}
