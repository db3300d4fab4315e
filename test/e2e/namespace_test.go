package e2e_test

import "testing"

func newNamespace(t *testing.T) string { return env.Namespace(t) }
