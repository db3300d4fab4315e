package leaderelection

import (
	"context"
	"errors"
	"sync"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// errCampaignAbandoned refuses a Lease write of a campaign that was
// abandoned to start a new one.
var errCampaignAbandoned = errors.New("campaign abandoned: the Lease was released, campaigning again")

// campaignLock wraps the Lease lock so that abandoning a campaign (when the
// release-watch sees the Lease freed) and acquiring the Lease exclude each
// other. Without it the release could cancel a campaign just after it
// wrote itself as holder and before OnStartedLeading: the replica would
// start leading on a cancelled context, or two campaigns would both lead.
// With it, either the write came first and the campaign is kept, or the
// abandon came first and the write is refused.
type campaignLock struct {
	resourcelock.Interface

	mu        sync.Mutex
	campaign  int  // counts campaigns, so a late call for an old one is ignored
	acquired  bool // this campaign wrote this replica as holder
	abandoned bool // this campaign was abandoned before acquiring
}

// reset starts a new campaign and returns its number.
func (l *campaignLock) reset() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.campaign++
	l.acquired, l.abandoned = false, false
	return l.campaign
}

// abandon marks campaign abandoned unless it has acquired the Lease (or is
// over), and reports whether it did.
func (l *campaignLock) abandon(campaign int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.acquired || campaign != l.campaign {
		return false
	}
	l.abandoned = true
	return true
}

func (l *campaignLock) Create(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	return l.write(ler, func() error { return l.Interface.Create(ctx, ler) })
}

func (l *campaignLock) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	return l.write(ler, func() error { return l.Interface.Update(ctx, ler) })
}

// write performs a Lease write unless the campaign is abandoned, holding
// the lock so that abandon waits for a write in flight.
func (l *campaignLock) write(ler resourcelock.LeaderElectionRecord, do func() error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.abandoned {
		return errCampaignAbandoned
	}
	if err := do(); err != nil {
		return err
	}
	if ler.HolderIdentity == l.Identity() {
		l.acquired = true
	}
	return nil
}
