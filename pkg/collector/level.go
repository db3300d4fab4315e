package collector

import "math"

// Level is what a sample means for the people running the cluster. The
// collector wakes the cluster's pass only when the Level changes (an
// edge); while it holds, however the figures wander, nothing happens.
// Every threshold has hysteresis: a value sitting on a threshold does not
// flap, because going back needs a margin past it.
type Level struct {
	// Reachable: the sample was taken. When false the other fields are
	// zero: nothing is known.
	Reachable bool
	// AcceptsWrites: the primary is out of recovery and not read-only.
	AcceptsWrites bool
	// Saturated: connections in use reached SaturatedAt of
	// max_connections (and have not yet fallen under SaturatedAt minus
	// SaturatedMargin).
	Saturated bool
	// NearlyFull: usage of the volume reached the nearly-full threshold.
	NearlyFull bool
	// CommitsWait: the primary asks more synchronous standbys than
	// stream, so commits block (no hysteresis: a standby streams or not).
	CommitsWait bool
	// Synchronous counts the standbys that confirm commits now; a change
	// is an edge, so status names the synchronous standbys of the hour.
	Synchronous int
	// Band is the usage in steps of BandStep of the volume. A new band is
	// an edge too, so the figures status records are never more than a
	// band behind the volume (see BandHolds).
	Band int
	// Wake counts the extra thresholds (Options.WakeThresholds, such as
	// a storage auto-grow threshold) the usage is at or over.
	Wake int
}

const (
	// BandStep is the width of a usage band: a tenth of the volume.
	BandStep = 0.1
	// UsageMargin is how far under a usage threshold usage must fall
	// before the threshold counts as cleared: 2 % of the volume, more
	// than WAL recycling or autovacuum move a steady database.
	UsageMargin = 0.02
	// SaturatedAt is the share of max_connections in use at which the
	// connections count as saturated, and SaturatedMargin how far under
	// it they must fall to clear.
	SaturatedAt     = 0.9
	SaturatedMargin = 0.05
)

// Thresholds are the usage thresholds of one cluster, as fractions of
// its volume.
type Thresholds struct {
	// NearlyFull is where StorageNearlyFull turns on.
	NearlyFull float64
	// Wake are further thresholds whose crossing wakes the pass.
	Wake []float64
}

// bands are the band thresholds: 10 %, 20 %, … 100 %.
var bands = func() []float64 {
	out := make([]float64, 0, 10)
	for i := 1; i <= 10; i++ {
		out = append(out, float64(i)*BandStep)
	}
	return out
}()

// next is the level of s, given the level prev of the previous sample.
func next(prev Level, s Sample, th Thresholds) Level {
	if s.Failed() {
		return Level{}
	}
	l := Level{Reachable: true, AcceptsWrites: s.AcceptsWrites, CommitsWait: s.CommitsWait(), Synchronous: len(s.SynchronousStandbys)}
	if s.MaxConnections > 0 {
		f := float64(s.Connections) / float64(s.MaxConnections)
		l.Saturated = crossed(b2i(prev.Saturated), f, []float64{SaturatedAt}, SaturatedMargin) == 1
	}
	f, ok := s.UsedFraction()
	if !ok {
		return l
	}
	l.NearlyFull = th.NearlyFull > 0 && crossed(b2i(prev.NearlyFull), f, []float64{th.NearlyFull}, UsageMargin) == 1
	l.Band = crossed(prev.Band, f, bands, UsageMargin)
	l.Wake = crossed(prev.Wake, f, th.Wake, UsageMargin)
	return l
}

// crossed counts the thresholds value is at or over, with hysteresis
// against prev (the previous count): the count rises as soon as value
// reaches a threshold, and falls only once value is margin under it (half
// the threshold at most, so that a small threshold can still clear).
func crossed(prev int, value float64, thresholds []float64, margin float64) int {
	up, down := 0, 0
	for _, t := range thresholds {
		if value >= t-epsilon {
			up++
		}
		if value+min(margin, t/2) >= t-epsilon {
			down++
		}
	}
	switch {
	case up > prev:
		return up
	case down < prev:
		return down
	default:
		return prev
	}
}

// epsilon absorbs float rounding at a threshold (0.3 of 1 GiB is not
// exactly 0.3).
const epsilon = 1e-9

// BandHolds says whether usedBytes of sizeBytes (figures a status
// recorded) still lie in band, hysteresis included: when they do, the
// recorded figures need no refresh.
func BandHolds(band int, usedBytes, sizeBytes int64) bool {
	if sizeBytes <= 0 {
		return band == 0
	}
	return crossed(band, float64(usedBytes)/float64(sizeBytes), bands, UsageMargin) == band
}

// UsedFraction is the share of the volume the data takes, false when the
// volume's size is not known.
func (s Sample) UsedFraction() (float64, bool) {
	if s.SizeBytes <= 0 || s.Failed() {
		return 0, false
	}
	return float64(s.UsedBytes()) / float64(s.SizeBytes), true
}

// UsedPercent is UsedFraction in whole percent, rounded down.
func (s Sample) UsedPercent() (int32, bool) {
	f, ok := s.UsedFraction()
	if !ok {
		return 0, false
	}
	return int32(math.Floor(f*100 + epsilon)), true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// LevelOf is the level of s on its own (no previous sample).
func LevelOf(s Sample, th Thresholds) Level { return next(Level{}, s, th) }
