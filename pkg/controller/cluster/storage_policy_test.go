package cluster

import (
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func TestAutoGrowMergesFieldByFieldWithDefaults(t *testing.T) {
	t.Parallel()
	cl := class()
	cl.Spec.Storage.AutoGrow = &pgv1.AutoGrowSpec{Enabled: ptr.To(true), Limit: ptr.To(q("40Gi")), Cooldown: &metav1.Duration{Duration: time.Minute}}
	d, err := resolve(cluster(pgv1.ClusterSettings{Storage: &pgv1.StorageSpec{AutoGrow: &pgv1.AutoGrowSpec{Threshold: ptr.To[int32](90)}}}), cl)
	if err != nil {
		t.Fatal(err)
	}
	p := d.AutoGrow
	if p == nil || p.threshold != 90 || p.increment != "20%" || p.limit.String() != "40Gi" || p.cooldown != time.Minute {
		t.Fatalf("policy = %+v", p)
	}
	if d.SpecStorageSize.String() != "10Gi" || d.StorageSize.String() != "10Gi" {
		t.Errorf("sizes = %s / %s", d.SpecStorageSize.String(), d.StorageSize.String())
	}
	d, err = resolve(cluster(pgv1.ClusterSettings{Storage: &pgv1.StorageSpec{AutoGrow: &pgv1.AutoGrowSpec{Enabled: ptr.To(false)}}}), cl)
	if err != nil || d.AutoGrow != nil {
		t.Errorf("the cluster turns it off: %+v, %v", d.AutoGrow, err)
	}
	d, err = resolve(cluster(pgv1.ClusterSettings{}), class())
	if err != nil || d.AutoGrow != nil {
		t.Errorf("off by default: %+v, %v", d.AutoGrow, err)
	}
}

func TestAutoGrowMergedValidation(t *testing.T) {
	t.Parallel()
	for name, ag := range map[string]*pgv1.AutoGrowSpec{
		"AutoGrowLimitMissing": {Enabled: ptr.To(true)},
		"AutoGrowInvalid":      {Enabled: ptr.To(true), Limit: ptr.To(q("20Gi")), Increment: ptr.To("0%")},
	} {
		cl := class()
		cl.Spec.Storage.AutoGrow = ag
		_, err := resolve(cluster(pgv1.ClusterSettings{}), cl)
		var se *specError
		if !errors.As(err, &se) || se.reason != name {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

func TestIncrementBytes(t *testing.T) {
	t.Parallel()
	for inc, want := range map[string]int64{"20%": 20 * mi, "150%": 150 * mi, "16Mi": 16 * mi, "1Gi": 1 << 30} {
		p := &autoGrowPolicy{increment: inc}
		got, err := p.incrementBytes(100 * mi)
		if err != nil || got != want {
			t.Errorf("%s: %d, %v; want %d", inc, got, err, want)
		}
	}
	for _, bad := range []string{"0%", "1000%", "x%", "-1Gi", "0", "abc"} {
		if _, err := (&autoGrowPolicy{increment: bad}).incrementBytes(100 * mi); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
