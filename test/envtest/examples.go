package envtest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Example is one file of manifests/examples: its comment header and its
// objects.
type Example struct {
	// Name is the file name, e.g. "01-minimal.yaml".
	Name string
	// Header is the leading comment block, without the "# " prefixes.
	Header string
	// Prerequisites are the example files the header's "Prerequisites:"
	// paragraph names, in the order named.
	Prerequisites []string
	// Objects are the file's objects, in file order.
	Objects []*unstructured.Unstructured
}

// Examples are the example files of one directory, sorted by name.
type Examples []Example

// exampleFile is how a header names another example.
var exampleFile = regexp.MustCompile(`\b[0-9]{2}-[a-z0-9-]+\.yaml\b`)

// LoadExamples reads every *.yaml file of dir.
func LoadExamples(dir string) (Examples, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	sort.Strings(files)
	var out Examples
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f, err)
		}
		objs, err := DecodeYAML(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		header := commentHeader(data)
		out = append(out, Example{
			Name:          filepath.Base(f),
			Header:        header,
			Prerequisites: exampleFile.FindAllString(headerField(header, "Prerequisites"), -1),
			Objects:       objs,
		})
	}
	return out, nil
}

// commentHeader returns the comment lines a file starts with.
func commentHeader(data []byte) string {
	var b strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "#")
		if !ok {
			break
		}
		b.WriteString(strings.TrimPrefix(line, " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// headerField returns the paragraph of a header that starts with "key:":
// that line and the indented lines continuing it.
func headerField(header, key string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(header, "\n") {
		switch {
		case strings.HasPrefix(line, key+":"):
			in = true
		case in && (line == "" || !strings.HasPrefix(line, " ")):
			return b.String()
		}
		if in {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// HeaderField returns the paragraph of the example's header that starts
// with "key:" ("Shows", "Prerequisites", "Apply", "Next"), or "".
func (e Example) HeaderField(key string) string { return headerField(e.Header, key) }

// Get returns the example of that file name.
func (ex Examples) Get(name string) (Example, bool) {
	for _, e := range ex {
		if e.Name == name {
			return e, true
		}
	}
	return Example{}, false
}

// WithPrerequisites returns the named examples preceded by their
// prerequisites, transitively, each file once, every prerequisite before
// the files that name it: the order in which a user applies them.
func (ex Examples) WithPrerequisites(names ...string) (Examples, error) {
	var out Examples
	done := map[string]bool{}
	visiting := map[string]bool{}
	var visit func(name, from string) error
	visit = func(name, from string) error {
		if done[name] {
			return nil
		}
		if visiting[name] {
			return fmt.Errorf("%s: prerequisites form a cycle through %s", from, name)
		}
		e, ok := ex.Get(name)
		if !ok {
			return fmt.Errorf("%s names prerequisite %s, which is not an example", from, name)
		}
		visiting[name] = true
		for _, p := range e.Prerequisites {
			if err := visit(p, name); err != nil {
				return err
			}
		}
		visiting[name] = false
		done[name] = true
		out = append(out, e)
		return nil
	}
	for _, n := range names {
		if err := visit(n, "the caller"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Objects returns copies of the examples' objects in order, so a caller
// may set namespaces and names without changing the loaded examples.
func (ex Examples) Objects() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, e := range ex {
		for _, o := range e.Objects {
			out = append(out, o.DeepCopy())
		}
	}
	return out
}
