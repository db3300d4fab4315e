package main

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
)

// waitCNPGDrained waits until the stand-in has reported on every CNPG
// Database in ns (a status for its generation). The lower bound runs
// CNPG's SQL itself and never waits for CNPG, so when it is done the
// stand-in still has its ~1,000 Databases to go through on the shared
// server — minutes of CREATE DATABASE checks that would otherwise load the
// phases after it (the stream's latency varied from 1 to 16 s p50 with how
// much of that tail was left). It returns how long it waited; on timeout
// it returns the time waited and the phases go on.
func waitCNPGDrained(ctx context.Context, pg versioned.Interface, ns string, timeout time.Duration) (time.Duration, bool) {
	start := time.Now()
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		list, err := pg.CNPGV1().Databases(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil // the API server is busy: ask again
		}
		for _, d := range list.Items {
			if d.Status.Applied == nil || d.Status.ObservedGeneration != d.Generation {
				return false, nil
			}
		}
		return true, nil
	})
	return time.Since(start), err == nil
}
