package argocd

import (
	"context"
	"fmt"
	"slices"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Statuses are Argo CD's health codes; a script returning any other is
// reported by Argo CD as Unknown.
var Statuses = []string{"Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"}

// Health is what a health script returns.
type Health struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// Run runs script on obj (an object as decoded from YAML or JSON).
func Run(script string, obj map[string]any) (Health, error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer l.Close()
	// Argo CD opens these and a reduced os library, nothing else: a
	// script that calls string.format works in a plain interpreter and
	// fails in Argo CD.
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.LoadLibName, lua.OpenPackage}, {lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), Protect: true}, lua.LString(lib.name)); err != nil {
			return Health{}, fmt.Errorf("open %s: %w", lib.name, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	l.SetGlobal("obj", toLua(l, obj))
	if err := l.DoString(script); err != nil {
		return Health{}, fmt.Errorf("run health script: %w", err)
	}
	ret, ok := l.Get(-1).(*lua.LTable)
	if !ok {
		return Health{}, fmt.Errorf("health script returned %s, want a table", l.Get(-1).Type())
	}
	h := Health{Status: str(ret.RawGetString("status")), Message: str(ret.RawGetString("message"))}
	if !slices.Contains(Statuses, h.Status) {
		return h, fmt.Errorf("health script returned status %q, not one of Argo CD's %v", h.Status, Statuses)
	}
	return h, nil
}

func str(v lua.LValue) string {
	if s, ok := v.(lua.LString); ok {
		return string(s)
	}
	return ""
}

// toLua converts a decoded object as Argo CD does: maps to tables, lists
// to arrays, numbers to Lua numbers.
func toLua(l *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case bool:
		return lua.LBool(v)
	case string:
		return lua.LString(v)
	case float64:
		return lua.LNumber(v)
	case int:
		return lua.LNumber(v)
	case int64:
		return lua.LNumber(v)
	case []any:
		t := l.CreateTable(len(v), 0)
		for _, e := range v {
			t.Append(toLua(l, e))
		}
		return t
	case map[string]any:
		t := l.CreateTable(0, len(v))
		for k, e := range v {
			t.RawSetString(k, toLua(l, e))
		}
		return t
	}
	return lua.LNil
}
