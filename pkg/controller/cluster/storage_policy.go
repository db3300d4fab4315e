package cluster

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Auto-grow defaults for what neither the class nor the cluster sets.
const (
	defaultGrowThreshold = 80
	defaultGrowIncrement = "20%"
	defaultGrowCooldown  = 10 * time.Minute
)

// autoGrowPolicy is storage.autoGrow merged and defaulted.
type autoGrowPolicy struct {
	threshold int32
	increment string // "20%" or a quantity
	limit     *resource.Quantity
	cooldown  time.Duration
}

// autoGrowOf is the policy of a merged spec, nil when auto-grow is off.
func autoGrowOf(s *pgv1.AutoGrowSpec) *autoGrowPolicy {
	if s == nil || s.Enabled == nil || !*s.Enabled {
		return nil
	}
	p := &autoGrowPolicy{threshold: defaultGrowThreshold, increment: defaultGrowIncrement, cooldown: defaultGrowCooldown, limit: s.Limit}
	if s.Threshold != nil {
		p.threshold = *s.Threshold
	}
	if s.Increment != nil {
		p.increment = *s.Increment
	}
	if s.Cooldown != nil {
		p.cooldown = s.Cooldown.Duration
	}
	return p
}

// validateAutoGrow checks the merged policy. The CRD refuses each of these
// on one object; a class and a cluster can still combine into them (and
// objects stored before a rule existed reach us).
func validateAutoGrow(d *desired) error {
	p := d.AutoGrow
	if p == nil {
		return nil
	}
	if p.limit == nil {
		return &specError{pgv1.ReasonAutoGrowLimitMissing, "storage.autoGrow is enabled without storage.autoGrow.limit (neither the class nor the cluster sets one)"}
	}
	if p.threshold < 1 || p.threshold > 99 {
		return &specError{pgv1.ReasonAutoGrowInvalid, fmt.Sprintf("storage.autoGrow.threshold %d must be between 1 and 99", p.threshold)}
	}
	if p.cooldown < time.Second {
		return &specError{pgv1.ReasonAutoGrowInvalid, fmt.Sprintf("storage.autoGrow.cooldown %s must be at least 1s", p.cooldown)}
	}
	if _, err := p.incrementBytes(d.SpecStorageSize.Value()); err != nil {
		return &specError{pgv1.ReasonAutoGrowInvalid, err.Error()}
	}
	return nil
}

// incrementBytes is one grow's step from a volume of size bytes.
func (p *autoGrowPolicy) incrementBytes(size int64) (int64, error) {
	if pct, ok := strings.CutSuffix(p.increment, "%"); ok {
		n, err := strconv.Atoi(pct)
		if err != nil || n < 1 || n > 999 {
			return 0, fmt.Errorf("storage.autoGrow.increment %q must be a percentage from 1%% to 999%% or a positive quantity", p.increment)
		}
		// Divide first where it loses nothing that matters, so that
		// exabyte volumes cannot overflow.
		return size/100*int64(n) + size%100*int64(n)/100, nil
	}
	q, err := resource.ParseQuantity(p.increment)
	if err != nil || q.Sign() <= 0 {
		return 0, fmt.Errorf("storage.autoGrow.increment %q must be a percentage from 1%% to 999%% or a positive quantity", p.increment)
	}
	return q.Value(), nil
}
