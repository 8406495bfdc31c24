package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/heraldmq/herald/api"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"
)

// scrape reads s's /metrics page into its metric families.
func scrape(t *testing.T, s *server) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// getJSON GETs path from s into v and returns the status code.
func getJSON(t *testing.T, s *server, path string, v any) int {
	t.Helper()
	resp, err := http.Get(s.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %s is not JSON: %v", path, body, err)
	}
	return resp.StatusCode
}

// label returns the value of label name on m.
func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// value is a sample's value, whatever its type.
func value(m *dto.Metric) float64 {
	switch {
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Untyped != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}

// perQueue maps queue name to the value of family name.
func perQueue(fams map[string]*dto.MetricFamily, name string) map[string]float64 {
	out := map[string]float64{}
	for _, m := range fams[name].GetMetric() {
		out[label(m, "queue")] = value(m)
	}
	return out
}

// single is the value of an unlabelled family (fails when absent).
func single(t *testing.T, fams map[string]*dto.MetricFamily, name string) float64 {
	t.Helper()
	f, ok := fams[name]
	if !ok || len(f.GetMetric()) != 1 {
		t.Fatalf("/metrics has no single %s", name)
	}
	return value(f.GetMetric()[0])
}

// queueTraffic makes three queues on s: deep (5 sent, 2 received, 1 of
// them deleted: 3 visible, 1 in flight), mid (2 sent, visible) and empty.
func queueTraffic(t *testing.T, s *server) {
	t.Helper()
	ctx := ctxFor(t, 60*time.Second)
	c := sqsClient(s)
	urls := map[string]string{}
	for _, name := range []string{"deep", "mid", "empty"} {
		out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name)})
		if err != nil {
			t.Fatalf("CreateQueue %s: %v", name, err)
		}
		urls[name] = *out.QueueUrl
	}
	for name, n := range map[string]int{"deep": 5, "mid": 2} {
		for i := range n {
			if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(urls[name]), MessageBody: aws.String(fmt.Sprint(i))}); err != nil {
				t.Fatalf("SendMessage: %v", err)
			}
		}
	}
	// deep: receive 2 (in flight for 10 minutes), delete one of them.
	got, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(urls["deep"]), MaxNumberOfMessages: 2, VisibilityTimeout: 600})
	if err != nil || len(got.Messages) != 2 {
		t.Fatalf("ReceiveMessage: %v, %d messages", err, len(got.Messages))
	}
	if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(urls["deep"]), ReceiptHandle: got.Messages[0].ReceiptHandle}); err != nil {
		t.Fatalf("DeleteMessage: %v", err)
	}
}

func TestOpsMetricsEmbedded(t *testing.T) {
	s := startServer(t, "", "--metrics-queue-limit", "2")
	queueTraffic(t, s)
	// The per-queue series name at most 2 queues; each scrape reads the
	// last selection plus up to 2 others, so within a few scrapes every
	// queue has been read and the 2 deepest are named. Herald's own SNS
	// queues count among the queues too.
	var fams map[string]*dto.MetricFamily
	for range 4 {
		fams = scrape(t, s)
	}

	t.Run("per-queue gauges, bounded to the deepest queues", func(t *testing.T) {
		tests := []struct {
			family string
			want   map[string]float64
		}{
			{"herald_sqs_queue_messages_visible", map[string]float64{"deep": 3, "mid": 2}},
			{"herald_sqs_queue_messages_in_flight", map[string]float64{"deep": 1, "mid": 0}},
			{"herald_sqs_queue_messages_delayed", map[string]float64{"deep": 0, "mid": 0}},
			{"herald_sqs_queue_messages_sent_total", map[string]float64{"deep": 5, "mid": 2}},
			{"herald_sqs_queue_messages_received_total", map[string]float64{"deep": 2, "mid": 0}},
			{"herald_sqs_queue_messages_deleted_total", map[string]float64{"deep": 1, "mid": 0}},
		}
		for _, tt := range tests {
			if got := perQueue(fams, tt.family); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("%s = %v, want %v (the empty queue left out by the limit)", tt.family, got, tt.want)
			}
		}
		ages := perQueue(fams, "herald_sqs_queue_oldest_message_age_seconds")
		if len(ages) != 2 || ages["deep"] < 0 || ages["deep"] > 60 {
			t.Errorf("oldest message ages %v, want deep and mid, each within a minute", ages)
		}
		for _, m := range fams["herald_sqs_queue_messages_visible"].GetMetric() {
			if label(m, "account") == "" || label(m, "region") != "us-east-1" {
				t.Errorf("labels of %v: want an account and region us-east-1", m.GetLabel())
			}
		}
		if got := single(t, fams, "herald_sqs_queues_tracked"); got < 3 {
			t.Errorf("herald_sqs_queues_tracked %v, want at least 3 (and Herald's own SNS queues)", got)
		}
		if got := single(t, fams, "herald_sqs_queue_metrics_limit"); got != 2 {
			t.Errorf("herald_sqs_queue_metrics_limit %v, want 2", got)
		}
	})

	t.Run("totals", func(t *testing.T) {
		for name, want := range map[string]float64{
			"herald_sqs_messages_sent_total": 7, "herald_sqs_messages_received_total": 2,
			"herald_sqs_messages_deleted_total": 1, "herald_sqs_messages_dead_lettered_total": 0,
		} {
			if got := single(t, fams, name); got != want {
				t.Errorf("%s = %v, want %v", name, got, want)
			}
		}
	})

	t.Run("store size and build info", func(t *testing.T) {
		if got := single(t, fams, "herald_store_size_bytes"); got <= 0 {
			t.Errorf("herald_store_size_bytes = %v, want > 0", got)
		}
		bi := fams["herald_build_info"].GetMetric()
		if len(bi) != 1 || value(bi[0]) != 1 || label(bi[0], "version") == "" || label(bi[0], "commit") == "" ||
			!strings.HasPrefix(label(bi[0], "go_version"), "go") {
			t.Errorf("herald_build_info = %v", bi)
		}
	})

	t.Run("limit 0 turns per-queue series off", func(t *testing.T) {
		off := startServer(t, "", "--metrics-queue-limit", "0")
		queueTraffic(t, off)
		fams := scrape(t, off)
		if _, ok := fams["herald_sqs_queue_messages_visible"]; ok {
			t.Error("per-queue series with --metrics-queue-limit 0")
		}
		if got := single(t, fams, "herald_sqs_messages_sent_total"); got != 7 {
			t.Errorf("herald_sqs_messages_sent_total = %v, want 7 (totals stay)", got)
		}
	})
}

// readiness is the body of /readyz.
type readiness struct {
	Status     string `json:"status"`
	Components map[string]struct {
		Status string `json:"status"`
		Detail string `json:"detail"`
	} `json:"components"`
}

func TestOpsHealthEmbedded(t *testing.T) {
	s := startServer(t, "")
	var live map[string]string
	if code := getJSON(t, s, "/livez", &live); code != http.StatusOK || live["status"] != "ok" {
		t.Errorf("/livez: %d %v", code, live)
	}
	var rd readiness
	if code := getJSON(t, s, "/readyz", &rd); code != http.StatusOK || rd.Status != "ok" ||
		rd.Components["store"].Status != "ok" || rd.Components["store"].Detail != "embedded" || len(rd.Components) != 1 {
		t.Errorf("/readyz: %d %+v", code, rd)
	}
	var hz map[string]string
	if code := getJSON(t, s, "/healthz", &hz); code != http.StatusOK || hz["status"] != "ok" {
		t.Errorf("/healthz: %d %v", code, hz)
	}
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestOpsCassandraDegradedAndDeployFiles runs the Cassandra setup with
// RabbitMQ and a Redis address nobody answers: /readyz stays ready and
// names Redis degraded. The metric names of this server and of an
// embedded one are those the Grafana dashboard and the alerting rules may
// use.
func TestOpsCassandraDegradedAndDeployFiles(t *testing.T) {
	requireCassandra(t)
	amqp := amqpURL(t)
	s := cassandra.start(t, "", "--redis-addr", closedPort(t), "--amqp-url", amqp)
	// SQS calls fail over to Cassandra; a few failures open the breaker.
	ctx := ctxFor(t, 90*time.Second)
	c := sqsClient(s)
	out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("ops-degraded")})
	if err != nil {
		t.Fatalf("CreateQueue: %v", err)
	}
	var rd readiness
	deadline := time.Now().Add(60 * time.Second)
	for {
		c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: out.QueueUrl, MessageBody: aws.String("x")})
		c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: out.QueueUrl})
		code := getJSON(t, s, "/readyz", &rd)
		if rd.Components["redis"].Status == "degraded" {
			if code != http.StatusOK || rd.Status != "degraded" || rd.Components["store"].Status != "ok" ||
				rd.Components["store"].Detail != "cassandra" || rd.Components["rabbitmq"].Status == "" {
				t.Errorf("/readyz with Redis down: %d %+v, want 200, degraded, store ok, rabbitmq named", code, rd)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never named Redis degraded: %d %+v", code, rd)
		}
		time.Sleep(200 * time.Millisecond)
	}
	var hz map[string]string
	if code := getJSON(t, s, "/healthz", &hz); code != http.StatusOK || hz["redis"] != "degraded" {
		t.Errorf("/healthz: %d %v, want 200 with redis degraded", code, hz)
	}

	emb := startServer(t, "")
	queueTraffic(t, emb)
	scrape(t, emb)
	exported := map[string]bool{"up": true} // Prometheus's own, per target
	for _, srv := range []*server{s, emb} {
		// A put, for the HTTP and store histograms.
		if _, _, err := srv.client().Put(ctx, api.PutRequest{Metadata: meta(uniqueWord(t) + ".ops")}); err != nil {
			t.Fatalf("put: %v", err)
		}
		for name, f := range scrape(t, srv) {
			exported[name] = true
			if f.GetType() == dto.MetricType_HISTOGRAM || f.GetType() == dto.MetricType_SUMMARY {
				exported[name+"_bucket"], exported[name+"_sum"], exported[name+"_count"] = true, true, true
			}
		}
	}
	if fams := scrape(t, s); fams["herald_redis_degraded"] == nil || value(fams["herald_redis_degraded"].GetMetric()[0]) != 1 {
		t.Errorf("herald_redis_degraded is not 1 with Redis down")
	}

	// The data centers' metrics come only from nodes of several data
	// centers: TestTwoDCsReplicationLagShowsACut checks those.
	t.Run("alerts", func(t *testing.T) {
		_, exprs := splitByMetric(alertExpressions(t, "../deploy/prometheus/alerts.yml"), dcMetrics)
		checkExpressions(t, exprs, exported)
	})
	t.Run("dashboard", func(t *testing.T) {
		_, exprs := splitByMetric(dashboardExpressions(t, "../deploy/grafana/herald.json"), dcMetrics)
		checkExpressions(t, exprs, exported)
	})
}

// dcMetrics is the prefix of the metrics only a node of several data
// centers exports.
const dcMetrics = "herald_dc_"

// splitByMetric splits exprs into those naming a metric that starts with
// prefix and the others.
func splitByMetric(exprs map[string]string, prefix string) (with, without map[string]string) {
	with, without = map[string]string{}, map[string]string{}
	for where, expr := range exprs {
		names := metricName.FindAllStringSubmatch(quoted.ReplaceAllString(expr, `""`), -1)
		if slices.ContainsFunc(names, func(n []string) bool { return strings.HasPrefix(n[1], prefix) }) {
			with[where] = expr
		} else {
			without[where] = expr
		}
	}
	return with, without
}

// metricName finds the metric names in a PromQL expression: identifiers
// of Herald's, Go's and the process's families, outside quoted strings.
var (
	quoted     = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	metricName = regexp.MustCompile(`(?:^|[^a-zA-Z0-9_$:])((?:herald|go|process)_[a-zA-Z0-9_:]+|up)\b`)
)

func checkExpressions(t *testing.T, exprs map[string]string, exported map[string]bool) {
	t.Helper()
	if len(exprs) == 0 {
		t.Fatal("no expressions")
	}
	for where, expr := range exprs {
		names := metricName.FindAllStringSubmatch(quoted.ReplaceAllString(expr, `""`), -1)
		if len(names) == 0 {
			t.Errorf("%s: %q names no metric", where, expr)
		}
		for _, n := range names {
			if !exported[n[1]] {
				t.Errorf("%s: %s is not a metric Herald exports", where, n[1])
			}
		}
	}
}

// alertExpressions reads a Prometheus rules file strictly.
func alertExpressions(t *testing.T, path string) map[string]string {
	t.Helper()
	var rules struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				For         string            `yaml:"for"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&rules); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]string{}
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("rule %+v lacks a name, severity or summary", r)
			}
			if r.For != "" {
				if _, err := model.ParseDuration(r.For); err != nil {
					t.Errorf("%s: for %q: %v", r.Alert, r.For, err)
				}
			}
			out["alert "+r.Alert] = r.Expr
		}
	}
	for _, want := range []string{"HeraldRedisDegraded", "HeraldDeadLetterQueueGrowing", "HeraldQueueOldestMessageOld", "HeraldHTTP5xxRate", "HeraldWebSocketSlowConsumers"} {
		if _, ok := out["alert "+want]; !ok {
			t.Errorf("no alert %s", want)
		}
	}
	return out
}

// dashboardExpressions reads a Grafana dashboard's panel queries.
func dashboardExpressions(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		UID    string `json:"uid"`
		Panels []struct {
			Title   string `json:"title"`
			Type    string `json:"type"`
			Targets []struct {
				RefID string `json:"refId"`
				Expr  string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("%s is not valid JSON: %v", path, err)
	}
	if dash.UID == "" {
		t.Error("the dashboard has no uid")
	}
	out := map[string]string{}
	for _, p := range dash.Panels {
		if p.Type != "row" && len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			out[fmt.Sprintf("panel %q %s", p.Title, q.RefID)] = q.Expr
		}
	}
	return out
}

func TestOpsDeployYAMLParses(t *testing.T) {
	for _, path := range []string{"../deploy/compose.yaml", "../deploy/prometheus/prometheus.yml",
		"../deploy/grafana/provisioning/datasources/prometheus.yml", "../deploy/grafana/provisioning/dashboards/herald.yml"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := yaml.Unmarshal(data, &v); err != nil || len(v) == 0 {
			t.Errorf("%s: %v (%d keys)", path, err, len(v))
		}
	}
}

func TestOpsVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, err := exec.Command(heraldBin, args...).Output()
		if err != nil {
			t.Fatalf("herald %v: %v", args, err)
		}
		if !regexp.MustCompile(`^herald \S+ \(commit \S+.*, go1\.\d+`).Match(out) || bytes.Count(out, []byte("\n")) != 1 {
			t.Errorf("herald %v printed %q", args, out)
		}
	}
	out, err := exec.Command(heraldBin, "version", "--json").Output()
	var info map[string]any
	if err != nil || json.Unmarshal(out, &info) != nil || info["version"] == "" || info["go_version"] == "" {
		t.Errorf("herald version --json: %v %q", err, out)
	}
}

// TestOpsLogFormatJSONAndAccessLog runs herald with JSON logs and the
// access log: every line is a JSON object, and a request makes one
// access line.
func TestOpsLogFormatJSONAndAccessLog(t *testing.T) {
	cmd := exec.Command(heraldBin, "serve", "--listen", "127.0.0.1:0", "--data-dir", t.TempDir(), "--log-format", "json", "--access-log")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan map[string]any, 100)
	bad := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var obj map[string]any
			if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
				select {
				case bad <- sc.Text():
				default:
				}
				continue
			}
			lines <- obj
		}
	}()
	next := func(what string, match func(map[string]any) bool) map[string]any {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case obj := <-lines:
				if match(obj) {
					return obj
				}
			case l := <-bad:
				t.Fatalf("a log line is not JSON: %q", l)
			case <-timeout:
				t.Fatalf("no %s log line in 30s", what)
			}
		}
	}
	start := next("listening", func(o map[string]any) bool { _, ok := o["addr"].(string); return ok })
	url := start["addr"].(string)
	resp, err := http.Get(url + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	access := next("access", func(o map[string]any) bool { return o["msg"] == "access" })
	keys := make([]string, 0, len(access))
	for k := range access {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if access["path"] != "/readyz" || access["status"] != float64(200) || access["method"] != "GET" {
		t.Errorf("access line %v (keys %v)", access, keys)
	}
}
