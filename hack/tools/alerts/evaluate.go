package alerts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/model/textparse"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/util/teststorage"
)

// Scrape is one scrape of the operator's /metrics (the text format) and
// when it was taken.
type Scrape struct {
	At   time.Time `json:"at"`
	Body string    `json:"body"`
}

// Firing is, per alert, the label sets its expression returns at the
// time of the last scrape: an alert whose expression returns nothing is
// absent. It is the expression alone: the rule's `for` is Prometheus'
// rule manager's business, and its clock is not the test's.
type Firing map[string][]map[string]string

// Evaluate stores the scrapes as Prometheus' scrape loop would (its own
// text parser, into its TSDB) and runs each alert's expression with its
// promql engine at the last scrape's time.
func Evaluate(ctx context.Context, groups *rulefmt.RuleGroups, scrapes []Scrape) (Firing, error) {
	if len(scrapes) == 0 {
		return nil, errors.New("no scrape")
	}
	db, err := teststorage.NewWithError()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	for _, s := range scrapes {
		if err := store(ctx, db, s); err != nil {
			return nil, err
		}
	}
	engine := promql.NewEngine(promql.EngineOpts{
		MaxSamples: 1e6, Timeout: time.Minute, LookbackDelta: 5 * time.Minute, Parser: promQL,
	})
	at := scrapes[len(scrapes)-1].At
	out := Firing{}
	for _, r := range Alerts(groups) {
		q, err := engine.NewInstantQuery(ctx, db, nil, r.Expr, at)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Alert, err)
		}
		res := q.Exec(ctx)
		if res.Err != nil {
			q.Close()
			return nil, fmt.Errorf("%s: %w", r.Alert, res.Err)
		}
		vec, err := res.Vector()
		q.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Alert, err)
		}
		for _, s := range vec {
			out[r.Alert] = append(out[r.Alert], s.Metric.Map())
		}
	}
	return out, nil
}

// store appends one scrape's samples at its time.
func store(ctx context.Context, db storage.Appendable, s Scrape) error {
	p, err := textparse.New([]byte(s.Body), "text/plain; version=0.0.4", labels.NewSymbolTable(), textparse.ParserOptions{})
	if err != nil {
		return fmt.Errorf("scrape parser: %w", err)
	}
	app := db.Appender(ctx)
	ts := s.At.UnixMilli()
	for {
		entry, err := p.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			_ = app.Rollback()
			return fmt.Errorf("parse scrape: %w", err)
		}
		if entry != textparse.EntrySeries {
			continue
		}
		_, _, v := p.Series()
		var ls labels.Labels
		p.Labels(&ls)
		if _, err := app.Append(0, ls, ts, v); err != nil {
			_ = app.Rollback()
			return fmt.Errorf("store %s: %w", ls, err)
		}
	}
	return app.Commit()
}
