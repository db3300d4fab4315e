package cnpgsim

import (
	"maps"
	"testing"
)

func TestSCRAMVerifierRoundTrip(t *testing.T) {
	for _, pw := range []string{"simple", `it's a \ "test"`, "ünïcödé", ""} {
		v, err := scramVerifier(pw)
		if err != nil {
			t.Fatal(err)
		}
		if !scramMatches(v, pw) {
			t.Errorf("verifier does not match its password %q", pw)
		}
		if scramMatches(v, pw+"x") {
			t.Errorf("verifier matches a different password")
		}
	}
	for _, bad := range []string{"", "md5abc", "SCRAM-SHA-256$x:y$z:w", "SCRAM-SHA-256$4096:!!$a:b"} {
		if scramMatches(bad, "pw") {
			t.Errorf("malformed verifier %q matched", bad)
		}
	}
}

func TestQuoteLiteral(t *testing.T) {
	for in, want := range map[string]string{
		"plain":      "'plain'",
		"it's":       "'it''s'",
		`back\slash`: `E'back\\slash'`,
		`a'\b`:       `E'a''\\b'`,
	} {
		if got := quoteLiteral(in); got != want {
			t.Errorf("quoteLiteral(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestParamsFileRoundTrip(t *testing.T) {
	params := map[string]string{"work_mem": "16MB", "search_path": `"$user", public`, "odd": `it's a \ value`}
	if got := parseParams(renderParams(params)); !maps.Equal(got, params) {
		t.Errorf("round trip = %q", got)
	}
	if got := changedNames(map[string]string{"a": "1", "b": "2"}, map[string]string{"a": "1", "b": "3", "c": "4"}); len(got) != 2 {
		t.Errorf("changedNames = %q", got)
	}
}

func TestSharedSANsCoverEveryNamespaceOnce(t *testing.T) {
	got := sharedSANs([]string{"b", "a", "b"})
	want := []string{"cnpgsim-shared", "*.a", "*.a.svc", "*.a.svc.cluster.local", "*.b", "*.b.svc", "*.b.svc.cluster.local"}
	if len(got) != len(want) {
		t.Fatalf("sans = %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sans = %q", got)
		}
	}
}
