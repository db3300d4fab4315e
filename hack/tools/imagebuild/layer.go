package imagebuild

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"sort"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// BinaryPath is where the binary lives in the image; it is the entrypoint.
const BinaryPath = "/usr/local/bin/setpoint"

// NonRoot is the user and group the image runs as (distroless' nonroot).
const NonRoot = 65532

// file is one entry of the image's only layer.
type file struct {
	name string // relative, directories end in "/"
	mode int64
	data []byte
}

// rootfs lists the image's files: the binary and the account files that
// name uid/gid 65532, so tools inside and outside show "nonroot". No
// shell, no package manager, nothing else.
func rootfs(binary []byte) []file {
	return []file{
		{name: "etc/", mode: 0o755},
		{name: "etc/group", mode: 0o644, data: []byte("root:x:0:\nnonroot:x:65532:\n")},
		{name: "etc/passwd", mode: 0o644, data: []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{name: "usr/", mode: 0o755},
		{name: "usr/local/", mode: 0o755},
		{name: "usr/local/bin/", mode: 0o755},
		{name: BinaryPath[1:], mode: 0o755, data: binary},
	}
}

// tarLayer writes files as a tar stream with sorted entries, root
// ownership, fixed modes and mtime as every modification time.
func tarLayer(files []file, mtime time.Time) ([]byte, error) {
	sorted := append([]file(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range sorted {
		hdr := &tar.Header{
			Name:    f.name,
			Mode:    f.mode,
			ModTime: mtime.UTC().Truncate(time.Second),
			Format:  tar.FormatUSTAR,
		}
		if f.name[len(f.name)-1] == '/' {
			hdr.Typeflag = tar.TypeDir
		} else {
			hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(f.data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// newLayer wraps an uncompressed tar as an OCI gzip layer. The compression
// is cached: the layer is compressed once, whatever writes it.
func newLayer(uncompressed []byte) (v1.Layer, error) {
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(uncompressed)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(gzip.BestCompression),
		tarball.WithCompressedCaching)
}
