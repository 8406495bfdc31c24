package redisindex

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// sender is what an Index or a Notifier sends its commands through: the
// scripts it runs and the one plain command it needs (PUBLISH).
type sender interface {
	redis.Scripter
	Publish(ctx context.Context, channel string, message any) *redis.IntCmd
}

// newSender returns client itself, or with Options.AutoPipeline a sender
// over the client's automatic pipeline (go-redis AsyncAutoPipeline): the
// commands of concurrent callers are written together and their replies
// read together, one system call each way for many commands instead of
// one per command each way.
//
// The pipeline does not honour a command's context once it is queued; a
// pipelined sender waits for each command only until its context ends, so
// a Redis that hangs fails each call within the Index's Timeout, as an
// unpipelined client does. When the client cannot pipeline, it is used
// as it is.
func newSender(client redis.UniversalClient, opts Options) sender {
	if !opts.AutoPipeline {
		return client
	}
	ap, err := client.AsyncAutoPipeline()
	if err != nil {
		return client
	}
	return pipelined{ap}
}

// pipelined is a sender over an asynchronous automatic pipeline, one that
// waits for each command within its caller's context.
type pipelined struct{ ap *redis.AutoPipeliner }

var _ sender = pipelined{}

// do queues a command made by newCmd and waits for it until ctx ends;
// then it returns another command from newCmd that carries ctx's error,
// so that nobody reads the queued command while the pipeline may still be
// writing its result.
func do[C redis.Cmder](ctx context.Context, ap *redis.AutoPipeliner, newCmd func() C) C {
	cmd := newCmd()
	if err := ap.Submit(ctx, cmd).WaitContext(ctx); err != nil && err == ctx.Err() {
		c := newCmd()
		c.SetErr(err)
		return c
	}
	return cmd
}

func (p pipelined) eval(ctx context.Context, name, payload string, keys []string, args []any) *redis.Cmd {
	all := make([]any, 0, 3+len(keys)+len(args))
	all = append(all, name, payload, len(keys))
	for _, k := range keys {
		all = append(all, k)
	}
	all = append(all, args...)
	return do(ctx, p.ap, func() *redis.Cmd {
		cmd := redis.NewCmd(ctx, all...)
		if len(keys) > 0 {
			cmd.SetFirstKeyPos(3) // a cluster routes the command by its first key
		}
		return cmd
	})
}

func (p pipelined) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return p.eval(ctx, "eval", script, keys, args)
}

func (p pipelined) EvalSha(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return p.eval(ctx, "evalsha", sha1, keys, args)
}

func (p pipelined) EvalRO(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return p.eval(ctx, "eval_ro", script, keys, args)
}

func (p pipelined) EvalShaRO(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return p.eval(ctx, "evalsha_ro", sha1, keys, args)
}

func (p pipelined) ScriptExists(ctx context.Context, hashes ...string) *redis.BoolSliceCmd {
	args := make([]any, 0, 2+len(hashes))
	args = append(args, "script", "exists")
	for _, h := range hashes {
		args = append(args, h)
	}
	return do(ctx, p.ap, func() *redis.BoolSliceCmd { return redis.NewBoolSliceCmd(ctx, args...) })
}

func (p pipelined) ScriptLoad(ctx context.Context, script string) *redis.StringCmd {
	return do(ctx, p.ap, func() *redis.StringCmd { return redis.NewStringCmd(ctx, "script", "load", script) })
}

func (p pipelined) Publish(ctx context.Context, channel string, message any) *redis.IntCmd {
	return do(ctx, p.ap, func() *redis.IntCmd { return redis.NewIntCmd(ctx, "publish", channel, message) })
}
