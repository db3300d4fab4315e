package main

import (
	"slices"
	"strings"
	"testing"
)

// --watch-namespaces takes namespace names, each once, and not beside
// --namespace; a bad list is refused at start with the flag's name.
func TestWatchNamespaces(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
		err  string // a prefix of the error; "" accepts
	}{
		{"unset watches all", nil, nil, ""},
		{"a list", []string{"--watch-namespaces=team-a, team-b"}, []string{"team-a", "team-b"}, ""},
		{"one", []string{"--watch-namespaces=team-a"}, []string{"team-a"}, ""},
		{"twice", []string{"--watch-namespaces=team-a,team-a"}, nil, `--watch-namespaces: "team-a" is listed twice`},
		{"not a name", []string{"--watch-namespaces=Team_A"}, nil, `--watch-namespaces: "Team_A" is not a namespace name: a lowercase RFC 1123 label`},
		{"empty entry", []string{"--watch-namespaces=team-a,"}, nil, `--watch-namespaces: "" is not a namespace name: a lowercase RFC 1123 label`},
		{"with --namespace", []string{"--namespace=x", "--watch-namespaces=team-a"}, nil, "--namespace and --watch-namespaces exclude each other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := parsed(t, tc.args...)
			got, err := o.watched()
			if !matches(err, tc.err) {
				t.Fatalf("watched() error %q, want %q", errString(err), tc.err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("watched() = %v, want %v", got, tc.want)
			}
			if verr := o.validate(); !matches(verr, tc.err) {
				t.Errorf("validate() = %q, want %q", errString(verr), tc.err)
			}
		})
	}
}

func matches(err error, prefix string) bool {
	if prefix == "" {
		return err == nil
	}
	return err != nil && strings.HasPrefix(err.Error(), prefix)
}

// --watch-namespace-selector takes a label selector that does not select
// every namespace, beside --watch-namespaces or alone, never beside
// --namespace.
func TestWatchNamespaceSelector(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // the parsed selector; "" is none
		err  string
	}{
		{"unset", nil, "", ""},
		{"equality", []string{"--watch-namespace-selector=tenant=true"}, "tenant=true", ""},
		{"set-based", []string{"--watch-namespace-selector=tenant in (a,b),!legacy"}, "!legacy,tenant in (a,b)", ""},
		{"beside a list", []string{"--watch-namespaces=platform-db", "--watch-namespace-selector=tenant"}, "tenant", ""},
		{"not a selector", []string{"--watch-namespace-selector=tenant=(x"}, "", "--watch-namespace-selector: "},
		{"selects everything", []string{"--watch-namespace-selector= "}, "", `--watch-namespace-selector " " selects every namespace`},
		{"with --namespace", []string{"--namespace=x", "--watch-namespace-selector=tenant"}, "", "--namespace and --watch-namespace-selector exclude each other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := parsed(t, tc.args...)
			sel, err := o.selector()
			if !matches(err, tc.err) {
				t.Fatalf("selector() error %q, want %q", errString(err), tc.err)
			}
			got := ""
			if sel != nil {
				got = sel.String()
			}
			if got != tc.want {
				t.Errorf("selector() = %q, want %q", got, tc.want)
			}
			if verr := o.validate(); !matches(verr, tc.err) {
				t.Errorf("validate() = %q, want %q", errString(verr), tc.err)
			}
		})
	}
}
