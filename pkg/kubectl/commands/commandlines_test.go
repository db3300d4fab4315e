package commands

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/setpoint-dev/setpoint/pkg/controller/grantplan"
)

// flagValues are the values each non-boolean flag is tried with; booleans
// are tried set. "output" multiplies every other variant of a command.
var flagValues = map[string][]string{
	"output":             {"json", "yaml"},
	"database":           {"order_items", "ledger"},
	"role":               {"admin", "rw", "ro"},
	"id":                 {"req-1"},
	"roles":              {"rw"},
	"wait":               {"5s"},
	"to":                 {"2026-11-30T17:45:00Z"},
	"as":                 {"shop-copy"},
	"object-store":       {"shop-copy-store"},
	"file":               {"-", "bundle.tar.gz"},
	"tail":               {"100"},
	"container":          {"postgres"},
	"instance":           {"shop-2"},
	"since":              {"5m"},
	"operator-namespace": {"setpoint-system"},
	"operator-selector":  {"app.kubernetes.io/name=setpoint"},
}

// revealingFlags print a password because the user asked for it, by name.
var revealingFlags = map[string]string{
	"show-password": "conn puts the password into the URI only with --show-password",
}

// variant is one command line.
type variant struct {
	args []string
	// key is the line without its argument: the command and its flags.
	key string
	// reveals is why this line may print a password ("" for none may).
	reveals string
}

// commandVariants walks the command tree: per runnable command, each
// fixture name as each positional argument, with the required flags, and
// then with each other flag set to each of its values; every one of
// those also with each --output format when the command has it.
func commandVariants(t *testing.T) []variant {
	t.Helper()
	var out []variant
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		path := strings.Fields(c.CommandPath())[1:]
		for _, flags := range flagVariants(t, c) {
			for _, positional := range positionals(c) {
				out = append(out, variant{args: slices.Concat(path, positional, flags.args),
					key: strings.Join(slices.Concat(path, flags.args), " "), reveals: flags.reveals})
			}
		}
	}
	walk(NewRoot(&Options{}))
	if len(out) == 0 {
		t.Fatal("no command to run")
	}
	return out
}

// positionals are the argument lists a command's usage line asks for
// ("restore CLUSTER --as NAME": one), each argument every fixture name.
func positionals(c *cobra.Command) [][]string {
	lists := [][]string{nil}
	for _, word := range strings.Fields(c.Use)[1:] {
		if strings.HasPrefix(word, "-") || strings.HasPrefix(word, "[") {
			break
		}
		var next [][]string
		for _, l := range lists {
			for _, n := range fixtureNames {
				next = append(next, append(slices.Clone(l), n))
			}
		}
		lists = next
	}
	return lists
}

// flagVariants are the flag lists to try a command with: the required
// flags alone, then with each other flag, each with every --output.
func flagVariants(t *testing.T, c *cobra.Command) []variant {
	t.Helper()
	var required []string
	each := []variant{{}}
	outputs := []string{""}
	for _, f := range collect(c.LocalFlags().VisitAll) {
		if f.Name == "help" {
			continue
		}
		if f.Name == "output" {
			outputs = append(outputs, flagValues[f.Name]...)
			continue
		}
		values := flagValues[f.Name]
		if f.Value.Type() == "bool" {
			values = []string{"true"}
		}
		if len(values) == 0 {
			t.Fatalf("%s --%s: add the values to try to flagValues", c.CommandPath(), f.Name)
		}
		if _, ok := f.Annotations[cobra.BashCompOneRequiredFlag]; ok {
			required = append(required, "--"+f.Name+"="+values[0])
			continue
		}
		for _, v := range values {
			each = append(each, variant{args: []string{"--" + f.Name + "=" + v}, reveals: revealingFlags[f.Name]})
		}
	}
	var out []variant
	for _, v := range each {
		for _, o := range outputs {
			args := slices.Concat(required, v.args)
			if o != "" {
				args = append(args, "--output="+o)
			}
			out = append(out, variant{args: args, reveals: v.reveals})
		}
	}
	return out
}

// collect lists what visitAll visits. The flags' type is pflag's, which
// the module requires only through cobra: inferring it here keeps go.mod
// as it is.
func collect[F any](visitAll func(func(F))) []F {
	var out []F
	visitAll(func(f F) { out = append(out, f) })
	return out
}

// run runs the line in process against the world's objects.
func (v variant) run(ctx context.Context, w world, psql string) (string, error) {
	var out, errOut bytes.Buffer
	o := &Options{Streams: genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Forwarder: noForward{}, Psql: psql, ReadCatalog: noCatalog}
	c := w.clients()
	o.connect = func() (*clients, error) { return c, nil }
	root := NewRoot(o)
	root.SetArgs(v.args)
	err := root.ExecuteContext(ctx)
	text := readable(out.Bytes()) + errOut.String() + writtenFiles()
	if err != nil {
		// What cmd/kubectl-setpoint prints.
		text += "error: " + err.Error()
	}
	return text, err
}

// readable is b, or the files of b when b is a .tar.gz (report -f -):
// what a command writes is scanned as what it holds, not compressed.
func readable(b []byte) string {
	if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		return string(b)
	}
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return string(b)
	}
	var out strings.Builder
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err != nil {
			if err != io.EOF {
				out.WriteString("unreadable archive: " + err.Error())
			}
			return out.String()
		}
		out.WriteString("== " + hdr.Name + "\n")
		_, _ = io.Copy(&out, tr)
	}
}

// writtenFiles reads and removes what the command wrote into the working
// directory (report's bundle), a test's temporary one.
func writtenFiles() string {
	entries, _ := os.ReadDir(".")
	var out strings.Builder
	for _, e := range entries {
		b, err := os.ReadFile(e.Name())
		if err != nil {
			out.WriteString("unreadable " + e.Name() + ": " + err.Error())
		}
		out.WriteString(readable(b))
		_ = os.Remove(e.Name())
	}
	return out.String()
}

// noForward stands in for the port-forward: psql's stand-in connects to
// nothing.
type noForward struct{}

func (noForward) Forward(context.Context, string, string, int) (int, func(), error) {
	return 5432, func() {}, nil
}

// noCatalog stands in for the read of privileges: a new database, its
// owner the first role asked about, where no privilege is held, so every
// declared one differs.
func noCatalog(_ context.Context, _ *pgx.ConnConfig, managed []string) (grantplan.Catalog, error) {
	return grantplan.Catalog{DatabaseOwner: managed[0],
		Objects: []grantplan.Object{{Kind: grantplan.Schema, Name: "public", Owner: "pg_database_owner"}}}, nil
}
