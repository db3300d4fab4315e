package inspect

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// children reads each named child of one kind and reports, per child,
// "not found" or what status says of it; status returns "" for a child
// that is as it should be. Kind is how the child is named to the user
// (Kind, or Kind.group where the short kind is ambiguous).
func children[T any](ctx context.Context, kind string, names []string,
	get func(context.Context, string, metav1.GetOptions) (T, error), status func(T) string) ([]Cause, error) {
	var out []Cause
	for _, name := range names {
		obj, err := get(ctx, name, metav1.GetOptions{})
		if ok, err := found(err, kind+" "+name); !ok {
			if err != nil {
				return nil, err
			}
			out = append(out, Cause{Object: kind + " " + name, Status: "not found"})
			continue
		}
		if st := status(obj); st != "" {
			out = append(out, Cause{Object: kind + " " + name, Status: st})
		}
	}
	return out, nil
}

// exists is the status of a child whose existence is all there is to say.
func exists[T any](T) string { return "" }

// applied renders CNPG's applied/message/observedGeneration triple, or ""
// when the object is applied at its generation.
func applied(ok *bool, observed, generation int64, message string) string {
	switch {
	case ok == nil:
		return withMessage("not yet looked at by CloudNativePG", message)
	case !*ok:
		return withMessage("not applied", message)
	case observed != generation:
		return fmt.Sprintf("applied at generation %d, not yet at %d", observed, generation)
	}
	return ""
}

func withMessage(s, message string) string {
	if message == "" {
		return s
	}
	return s + ": " + message
}
