package bundle

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"time"
)

// Bundle is the files of a report, in the order they were added, and the
// redactor every one of them passes through on its way out.
type Bundle struct {
	files  []file
	notes  []string
	redact *redactor
}

type file struct {
	name string
	data []byte
}

func newBundle() *Bundle { return &Bundle{redact: newRedactor()} }

// Add puts a file into the bundle (the caller's status and explanation
// screens, say); it is redacted like the rest.
func (b *Bundle) Add(name string, data []byte) {
	b.files = append(b.files, file{name: name, data: data})
}

// note records what could not be collected, for the README.
func (b *Bundle) note(what string, err error) {
	b.notes = append(b.notes, fmt.Sprintf("%s: %v", what, err))
}

// Files are the names of the bundle's files, README.txt first.
func (b *Bundle) Files() []string {
	names := []string{readmeName}
	for _, f := range b.files {
		names = append(names, f.name)
	}
	return names
}

const readmeName = "README.txt"

// readme says what the bundle holds and what it leaves out.
func (b *Bundle) readme(cluster, namespace string, at time.Time) []byte {
	var s strings.Builder
	fmt.Fprintf(&s, "kubectl setpoint report %s -n %s, %s\n\n", cluster, namespace, at.UTC().Format(time.RFC3339))
	s.WriteString(`status.txt, explain.txt   what kubectl setpoint status and explain show
postgresclusters/ postgresdatabases/ cnpg/ barmancloud/
                          the objects as the API server has them (without managedFields)
secrets.yaml              the cluster's Secrets: name, type, keys, labels, owners; never a value
pods.yaml                 the Pods' phases, conditions and container states (no specs, no env)
events.yaml               the Events of all of the above
logs/pods/POD/CONTAINER.log  the instances' and poolers' logs
logs/operator/POD.log     the operator's log lines that name this namespace

Every value of every Secret of the namespace the plugin could read, and any password in a
connection string (URI or key=value), is replaced by [REDACTED] in every file.
`)
	if len(b.notes) > 0 {
		s.WriteString("\nNot collected:\n")
		for _, n := range b.notes {
			fmt.Fprintf(&s, "  %s\n", n)
		}
	}
	return []byte(s.String())
}

// WriteTarGz writes the bundle as a gzipped tar, every file under dir/,
// each redacted.
func (b *Bundle) WriteTarGz(w io.Writer, dir, cluster, namespace string, at time.Time) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	files := append([]file{{name: readmeName, data: b.readme(cluster, namespace, at)}}, b.files...)
	for _, f := range files {
		data := b.redact.apply(f.data)
		hdr := &tar.Header{Name: dir + "/" + f.name, Mode: 0o644, Size: int64(len(data)), ModTime: at, Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
		if _, err := tw.Write(data); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("close archive: %w", err)
	}
	return gz.Close()
}
