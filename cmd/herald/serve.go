package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/heraldmq/herald/cache"
	"github.com/heraldmq/herald/httpapi"
	"github.com/heraldmq/herald/limits"
	"github.com/heraldmq/herald/metrics"
	"github.com/heraldmq/herald/sns/snshttp"
	"github.com/heraldmq/herald/web"
)

// serveConfig is everything 'herald serve' is told.
type serveConfig struct {
	listen      string
	tls         tlsFlags
	store       storeConfig
	aws         awsConfig
	notify      snsNotifyConfig
	amqp        amqpConfig
	ws          wsConfig
	auth        authConfig
	logLevel    string
	pprofListen string
	httpServer  string
	cache       cache.Config
	limits      limitRules
	ops         opsConfig
	// configPath is --config; declared is what that file declares.
	configPath string
	declared   fileConfig
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg := serveConfig{cache: cache.DefaultConfig()}
	fs := newServeFlags(&cfg, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve takes no arguments, got %q", fs.Args())
	}
	if cfg.configPath != "" {
		fc, err := loadConfigFile(fs, cfg.configPath)
		if err != nil {
			return err
		}
		cfg.declared = fc
	}
	if err := cfg.validate(); err != nil {
		return err
	}
	return serve(ctx, cfg, stderr)
}

// newServeFlags is the flag set of 'herald serve' over cfg: the flags, the
// configuration file's keys (config.go) and docs/configuration.md's list.
func newServeFlags(cfg *serveConfig, stderr io.Writer) *flag.FlagSet {
	fs := newFlagSet("serve", "serve [flags]", stderr)
	fs.StringVar(&cfg.configPath, "config", "", "YAML file of flag values and of queues and topics to create at start-up (docs/configuration.md); flags and HERALD_* variables override it")
	fs.StringVar(&cfg.listen, "listen", "127.0.0.1:4566", "address to serve HTTP on, or HTTPS with --tls-cert (host:port; port 0 picks a free one)")
	cfg.tls.register(fs)
	cfg.store.register(fs)
	cfg.aws.register(fs)
	cfg.notify.register(fs)
	cfg.amqp.register(fs)
	cfg.ws.register(fs)
	cfg.auth.register(fs)
	cfg.ops.register(fs)
	cfg.limits.register(fs)
	fs.StringVar(&cfg.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&cfg.httpServer, "http-server", httpServerLean, "what serves plain HTTP: "+httpServerLean+" (internal/http1 answers POST, PUT and DELETE requests and hands the rest to net/http) or "+httpServerStd+" (net/http alone); HTTPS is always net/http")
	fs.StringVar(&cfg.pprofListen, "pprof-listen", "", "serve Go's profiler (net/http/pprof) on this address; empty disables it")
	fs.DurationVar(&cfg.cache.DefaultTTL, "default-ttl", cfg.cache.DefaultTTL, "TTL of a message that names none")
	fs.DurationVar(&cfg.cache.MaxTTL, "max-ttl", cfg.cache.MaxTTL, "longest TTL a message may ask for")
	fs.IntVar(&cfg.cache.MaxMetadataBytes, "max-metadata-bytes", cfg.cache.MaxMetadataBytes, "largest metadata JSON object, in bytes")
	fs.IntVar(&cfg.cache.MaxBodyBytes, "max-body-bytes", cfg.cache.MaxBodyBytes, "largest message body, in bytes")
	fs.IntVar(&cfg.cache.MaxPaths, "max-paths", cfg.cache.MaxPaths, "most paths one message may name")
	fs.IntVar(&cfg.cache.MaxLimit, "max-page-limit", cfg.cache.MaxLimit, "largest page a query may ask for")
	fs.IntVar(&cfg.cache.DefaultLimit, "default-page-limit", cfg.cache.DefaultLimit, "page size of a query that names none")
	fs.IntVar(&cfg.cache.MaxBatch, "max-batch", cfg.cache.MaxBatch, "most messages in one batch put")
	return fs
}

func (c serveConfig) validate() error {
	switch {
	case c.store.engine != "embedded" && c.store.engine != "cassandra":
		return fmt.Errorf("--store %q: the engines are embedded and cassandra", c.store.engine)
	case c.cache.DefaultTTL < time.Second || c.cache.DefaultTTL > c.cache.MaxTTL:
		return fmt.Errorf("--default-ttl must be at least 1s and at most --max-ttl (%s)", c.cache.MaxTTL)
	case c.cache.MaxMetadataBytes < 16, c.cache.MaxBodyBytes < 0, c.cache.MaxPaths < 1, c.cache.MaxBatch < 1:
		return errors.New("size limits must be positive")
	case c.cache.MaxLimit < 1 || c.cache.DefaultLimit < 1 || c.cache.DefaultLimit > c.cache.MaxLimit:
		return errors.New("--default-page-limit must be between 1 and --max-page-limit")
	}
	if err := c.tls.validate(); err != nil {
		return err
	}
	if err := validHTTPServer(c.httpServer); err != nil {
		return err
	}
	return c.ops.validate()
}

// serve runs Herald until ctx is cancelled, then shuts down cleanly.
func serve(ctx context.Context, cfg serveConfig, stderr io.Writer) error {
	log, err := newLogger(cfg.logLevel, cfg.ops.logFormat, stderr)
	if err != nil {
		return err
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		// Requests make short-lived garbage at a high rate while the live
		// heap stays small: collecting at 5x the live heap instead of 2x
		// spends far less CPU on GC for little memory. GOGC overrides it.
		debug.SetGCPercent(400)
	}
	// The certificate and the listener come first: a bad pair or a port
	// already taken fails the start at once, before the store is opened or
	// anything runs in the background.
	tlsConfig, err := cfg.tls.serverConfig(log)
	if err != nil {
		return err
	}
	ln, err := listen(cfg.listen)
	if err != nil {
		return err
	}
	defer ln.Close()
	eng, err := openEngine(ctx, cfg.store, cfg.aws, log)
	if err != nil {
		return err
	}
	defer eng.close()

	creds, err := loadCredentials(cfg.aws, cfg.ws)
	if err != nil {
		return err
	}
	identifier, requireIdentity, err := creds.identifier(cfg.auth, cfg.aws.account)
	if err != nil {
		return err
	}
	cfg.cache.RequireIdentity = requireIdentity
	// One limiter for every door; without --limit it limits nothing until
	// PUT /v1/admin/limits gives it rules.
	limiter := limits.New(cfg.limits.rules)
	limiter.SetMaxInFlight(cfg.limits.maxInFlight)
	if eng.sharedLimits != nil {
		limiter.SetShared(eng.sharedLimits)
	}
	cfg.cache.Limits = limiter
	m := metrics.New()
	eng.instrument(m)
	svc := cache.NewService(eng.cache, cfg.cache)
	handler := httpapi.New(svc, m, log)
	handler.SetIdentifier(identifier)
	handler.SetStoreName(cfg.store.engine)
	if cfg.ops.accessLog {
		handler.SetAccessLog(log)
	}
	if eng.ready != nil {
		handler.SetReadinessCheck(eng.ready)
	}
	events, err := openEvents(cfg.amqp, svc, m.Registry, log)
	if err != nil {
		return err
	}
	defer events.close()
	svc.SetEvents(events.events)
	handler.SetEvents(events.events)
	queues, err := openQueues(eng, cfg.aws, log)
	if err != nil {
		return err
	}
	registerQueueMetrics(m.Registry, queues, eng.breaker, eng.dcNames)
	registerOpsMetrics(m.Registry, eng, queues, cfg.ops.metricsQueueLimit)
	m.Registry.MustRegister(metrics.TopWriters(limiter.Writers()), metrics.Throttled(limiter))
	handler.AddComponents(eng.components)
	handler.AddComponents(events.components)
	defer queues.closer()
	rollups := openRollups(eng, svc, events, queues, cfg.aws.account, requireIdentity, limiter, log)
	serveRollups(handler, rollups, m.Registry)
	topics, err := openTopics(eng, svc, cfg.auth.grants.topicGrants(requireIdentity), queues, rollups, cfg.aws, cfg.notify, cfg.store.dataDir, log)
	if err != nil {
		return err
	}
	defer topics.close()
	if rollups != nil {
		rollups.SetPublisher(topics.svc)
	}
	registerSNSMetrics(m.Registry, topics.svc.Stats())
	aws, err := awsHandler(queues, topics, creds, cfg.aws, limiter, m, log)
	if err != nil {
		return err
	}
	handler.SetAWSHandler(aws)
	if err := declare(ctx, cfg, queues, topics, ln.Addr()); err != nil {
		return err
	}
	handler.HandleGET(snshttp.DefaultCertPath, topics.signer.CertHandler())
	wsHandler, err := websocketHandler(cfg.ws, cfg.store.engine, creds, cfg.auth.grants, svc, events.events, queues, rollups, cfg.aws, limiter, log)
	if err != nil {
		return err
	}
	handler.SetWebSocket(withRequestOrigin(wsHandler))
	registerWSMetrics(m.Registry, wsHandler.Stats())
	handler.SetAdmin(queues.svc, topics.svc, nodeInfo(cfg.store.engine, cfg.aws.region))
	// Rules set at run time are kept in the store: every node (and this
	// one after a restart) puts them in force in place of --limit's.
	limitsCtl := &limits.Control{Limiter: limiter, Operator: cfg.aws.account, Configured: cfg.limits.rules, Store: eng.settings}
	if err := limitsCtl.Load(ctx); err != nil {
		log.Warn("rate limits: the rules set at run time could not be read; the configuration's are in force until they can", "err", err)
	}
	go limitsCtl.Sync(ctx, func(err error) { log.Warn("rate limits: reading the rules set at run time", "err", err) })
	handler.SetLimits(limitsCtl)
	if eng.backup != nil {
		handler.SetBackup(eng.backup, cfg.store.dataDir)
	}
	handler.SetPage(web.Handler(), web.Assets()...)
	bgCtx, stopBackground := context.WithCancel(context.Background())
	defer stopBackground()
	go queues.run(bgCtx)
	go topics.run(bgCtx)
	if rollups != nil {
		go rollups.Run(bgCtx)
	}

	srv := &http.Server{Handler: handler, TLSConfig: tlsConfig, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, ErrorLog: serverErrorLog(log)}
	log.Info("herald listening", append([]any{"addr", cfg.tls.scheme() + "://" + ln.Addr().String()}, cfg.store.describe()...)...)
	base := browsableURL(cfg.tls.scheme(), ln.Addr())
	log.Info("herald ready", "console", base+"/", "sqs_sns_endpoint", base, "metrics", base+"/metrics")

	if cfg.pprofListen != "" {
		go servePprof(cfg.pprofListen, log)
	}
	errc := make(chan error, 1)
	edge := newEdge(srv, cfg.httpServer == httpServerLean)
	go func() { errc <- edge.serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("herald shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// WebSocket connections are hijacked: srv.Shutdown does not see them.
	// Their close handshakes run alongside the rest of the shutdown.
	wsDone := make(chan error, 1)
	go func() { wsDone <- wsHandler.Shutdown(shutdownCtx) }()
	defer func() {
		if err := <-wsDone; err != nil {
			log.Warn("websocket connections still open at the end of the shutdown", "err", err)
		}
	}()
	handler.CloseStreams() // event streams never end by themselves
	if err := edge.shutdown(shutdownCtx); err != nil {
		return err
	}
	return nil
}

// listen binds addr, saying in one line what to do when the port is taken.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("cannot listen on %s: the port is in use (another Herald already running?); stop it or choose another address with --listen", addr)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s (--listen): %w", addr, err)
	}
	return ln, nil
}

// browsableURL is the base URL (scheme http or https) a browser or SDK on
// this machine reaches the listener at: an unspecified host (0.0.0.0, ::)
// becomes 127.0.0.1.
func browsableURL(scheme string, a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || tcp.IP.IsUnspecified() || tcp.IP == nil {
		port := ""
		if ok {
			port = strconv.Itoa(tcp.Port)
		}
		return scheme + "://" + net.JoinHostPort("127.0.0.1", port)
	}
	return scheme + "://" + tcp.String()
}

// declare creates the queues and topics of the configuration file.
func declare(ctx context.Context, cfg serveConfig, queues *queueService, topics *topicService, addr net.Addr) error {
	fc := cfg.declared
	if len(fc.Queues) == 0 && len(fc.Topics) == 0 {
		return nil
	}
	regions, err := cfg.aws.servedRegions()
	if err != nil {
		return err
	}
	scheme := cfg.tls.scheme()
	host := strings.TrimPrefix(browsableURL(scheme, addr), scheme+"://")
	if err := declareResources(ctx, fc, queues.svc, topics.svc, cfg.aws, regions, scheme, host); err != nil {
		return fmt.Errorf("%s: %w", cfg.configPath, err)
	}
	return nil
}
