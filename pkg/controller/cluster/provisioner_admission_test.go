package cluster

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestIsAdmissionDenial(t *testing.T) {
	t.Parallel()
	gr := schema.GroupResource{Group: "postgresql.cnpg.io", Resource: "clusters"}
	denied := apierrors.NewForbidden(gr, "shop", errors.New(`admission webhook "vcluster.cnpg.io" denied the request: no`))
	rbac := apierrors.NewForbidden(gr, "shop", errors.New(`User "setpoint" cannot patch resource "clusters"`))
	cases := []struct {
		err  error
		want bool
	}{
		{denied, true},
		{fmt.Errorf("apply CNPG cluster: %w", denied), true},
		{rbac, false},
		{errors.New(`admission webhook "x" denied the request`), false}, // not an API status
		{nil, false},
	}
	for _, c := range cases {
		if got := isAdmissionDenial(c.err); got != c.want {
			t.Errorf("isAdmissionDenial(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
