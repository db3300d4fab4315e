package operator

import (
	"context"
	"errors"

	"k8s.io/klog/v2"
)

// supervise runs the controllers while CloudNativePG's CRDs are installed,
// and restarts them, without restarting the process, whenever the set of
// installed CRDs changes: CNPG installed after setpoint, the barman-cloud
// plugin installed or removed. Informers for a kind that is not served
// would never sync and hold every controller back.
func (c *controllers) supervise(ctx context.Context, w *apiWatcher) error {
	logger := klog.FromContext(ctx)
	for {
		installed, known, changed := w.state()
		if !known || !installed.cnpgInstalled() {
			c.h.synced.Store(false)
			select {
			case <-ctx.Done():
				return nil
			case <-changed:
				continue
			}
		}
		c.h.synced.Store(false)
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- c.run(runCtx, installed) }()
		select {
		case <-ctx.Done():
			cancel()
			return <-done
		case err := <-done:
			cancel()
			return err
		case <-changed:
			logger.Info("Installed CRDs changed; restarting the controllers")
			cancel()
			// Cut short (an informer of a removed CRD never syncing, say):
			// nothing to report but the restart.
			if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
				logger.Error(err, "Controllers stopped with an error before the restart")
			}
		}
	}
}
