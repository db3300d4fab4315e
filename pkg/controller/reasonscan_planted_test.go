package controller

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strings"
	"testing"
)

// plantedAPI declares a small vocabulary for the checker's own tests.
const plantedAPI = `package v1alpha1

const (
	ReasonDeclared  = "Declared"
	ConditionThing  = "ThingReady"
	EventHappened   = "Happened"
	ReasonForgotten = "Forgotten"
)
`

// plantedHealth declares the helpers the planted passes call, in a file
// of their own, as pkg/controller does.
const plantedHealth = `package controller

type Health struct{ Reason, Message string }

func Failed(reason, message string) Health { return Health{Reason: reason, Message: message} }

type refusal struct{ reason, message string }
`

// plantedCleanPass uses only declared constants, messages and "".
const plantedCleanPass = `package cluster

import (
	"github.com/setpoint-dev/setpoint/pkg/controller"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

var failed = controller.Failed

func observe(r recorder, conds []metav1.Condition, h controller.Health) controller.Health {
	if h.Reason == "" || h.Reason == pgv1.ReasonDeclared {
		return failed("", "no reason: a message only")
	}
	r.Eventf(nil, "Warning", pgv1.EventHappened, "message %s", "x")
	_ = meta.FindStatusCondition(conds, pgv1.ConditionThing)
	return failed(pgv1.ReasonDeclared, "a message that says "+"Declared things")
}
`

// plantedLiterals are passes that each emit an undeclared reason one
// way, with the line the checker must name.
var plantedLiterals = map[string]string{
	"a call through an alias":     `h := failed("Oops", "message")`,
	"a call of the original":      `h := controller.Failed("Oops", "message")`,
	"a concatenation":             `h := failed("WaitingFor"+string(x), "message")`,
	"a keyed field":               `h := controller.Health{Reason: "Oops"}`,
	"an assignment to a field":    `h.Reason = "Oops"`,
	"an assignment to a variable": `reason = "Oops"`,
	"an unkeyed struct":           `_ = &refusal{"Oops", "message"}`,
	"a comparison":                `_ = h.Reason == "Oops"`,
	"an Event":                    `r.Eventf(nil, "Warning", "Oops", "message")`,
	"a condition type":            `_ = meta.FindStatusCondition(conds, "OopsReady")`,
	"a metav1.Condition":          `_ = metav1.Condition{Type: "OopsReady", Reason: pgv1.ReasonDeclared}`,
	"a declared reason spelled":   `_ = map[string]int{"Declared": 1}`,
	"a case":                      `switch h.Reason { case "Oops": }`,
	"a local reason constant":     `const reasonOops = "Oops"`,
	"a local condition constant":  `const oopsCondition = "OopsReady"`,
}

const plantedPrefix = `package cluster

func observe(r recorder, conds []metav1.Condition, h controller.Health, x string) {
	var reason string
	_ = reason
	`

func parsePlanted(t *testing.T, fset *token.FileSet, sources map[string]string) []*ast.File {
	t.Helper()
	var files []*ast.File
	for _, name := range slices.Sorted(maps.Keys(sources)) {
		f, err := parser.ParseFile(fset, name, sources[name], parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		files = append(files, f)
	}
	return files
}

func plantedVocabulary(t *testing.T) map[string]string {
	fset := token.NewFileSet()
	return vocabulary(parsePlanted(t, fset, map[string]string{"api.go": plantedAPI}))
}

func TestReasonScanAcceptsDeclaredReasons(t *testing.T) {
	fset := token.NewFileSet()
	files := parsePlanted(t, fset, map[string]string{"health.go": plantedHealth, "pass.go": plantedCleanPass})
	if found, _ := scanSources(fset, plantedVocabulary(t), files); len(found) > 0 {
		t.Errorf("clean source reported:\n%s", strings.Join(found, "\n"))
	}
}

func TestReasonScanCatchesPlantedLiterals(t *testing.T) {
	for what, stmt := range plantedLiterals {
		t.Run(what, func(t *testing.T) {
			fset := token.NewFileSet()
			src := plantedPrefix + stmt + "\n}\n"
			files := parsePlanted(t, fset, map[string]string{
				"health.go": plantedHealth, "pass.go": plantedCleanPass, "planted.go": src,
			})
			found, _ := scanSources(fset, plantedVocabulary(t), files)
			// The planted statement is on line 6 of planted.go.
			if len(found) == 0 || !strings.HasPrefix(found[0], "planted.go:6:") {
				t.Errorf("planted %s (%s) not reported at planted.go:6; reported: %q", what, stmt, found)
			}
		})
	}
}

func TestReasonScanCatchesDeadVocabulary(t *testing.T) {
	fset := token.NewFileSet()
	files := parsePlanted(t, fset, map[string]string{"health.go": plantedHealth, "pass.go": plantedCleanPass})
	got := unusedConstants(plantedVocabulary(t), files)
	if want := []string{"ReasonForgotten"}; !slices.Equal(got, want) {
		t.Errorf("unused constants = %q, want %q", got, want)
	}
}
