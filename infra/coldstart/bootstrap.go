package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// HelloWorld is the baseline: a bare aws-lambda-go bootstrap (./hello) answering the same events.
const HelloWorld = "HelloWorld"

// packages are the mains to build, by template.yaml logical id.
var packages = map[string]string{
	"AuthFunction":        "./functions/auth/lambda",
	"UsersFunction":       "./functions/users/lambda",
	"InvitationsFunction": "./functions/invitations/lambda",
	"CommentsFunction":    "./functions/comments/lambda",
	"DocsFunction":        "./functions/docs/lambda",
	"ExpiriesFunction":    "./functions/expiries/lambda",
	"MailFunction":        "./functions/mail/lambda",
	HelloWorld:            "./infra/coldstart/hello",
}

// Bootstrap is one built binary.
type Bootstrap struct {
	Function string
	Path     string
	Size     int64
	// Wrapper, when set, is a command line the bootstrap is run under (strace).
	Wrapper []string
}

// Build builds the bootstraps of functions into dir with flags (LambdaFlags: the Makefile's), for the
// machine it runs on: the harness has to execute them here, and only the instruction set differs from
// what is deployed.
func Build(ctx context.Context, moduleRoot, dir string, functions, flags []string) ([]Bootstrap, error) {
	out := make([]Bootstrap, 0, len(functions))
	for _, fn := range functions {
		pkg, ok := packages[fn]
		if !ok {
			return nil, fmt.Errorf("build: unknown function %q", fn)
		}
		path := filepath.Join(dir, fn, "bootstrap")
		args := append([]string{"build"}, flags...)
		cmd := exec.CommandContext(ctx, "go", append(args, "-o", path, pkg)...)
		cmd.Dir = moduleRoot
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build %s: %w\n%s", fn, err, msg)
		}
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", fn, err)
		}
		out = append(out, Bootstrap{Function: fn, Path: path, Size: st.Size()})
	}
	return out, nil
}

// Settings are the function's own environment variables (template.yaml's Environment) plus what
// points it at DynamoDB Local.
type Settings map[string]string

// lambdaEnv is the whole environment of the process, and nothing of ours: what Lambda defines for a
// provided.al2023 function (no HOME, no AWS_EXECUTION_ENV for OS-only runtimes), region and the
// execution role's temporary credentials included, then the function's settings.
func lambdaEnv(function, runtimeAPI string, s Settings) []string {
	env := []string{
		"AWS_LAMBDA_RUNTIME_API=" + runtimeAPI,
		"AWS_LAMBDA_FUNCTION_NAME=" + function,
		"AWS_LAMBDA_FUNCTION_VERSION=$LATEST",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=512",
		"AWS_LAMBDA_INITIALIZATION_TYPE=on-demand",
		"AWS_LAMBDA_LOG_GROUP_NAME=/aws/lambda/" + function,
		"AWS_LAMBDA_LOG_STREAM_NAME=2026/01/01/[$LATEST]0123456789abcdef0123456789abcdef",
		"AWS_REGION=us-east-1",
		"AWS_DEFAULT_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=ASIAEXAMPLECOLDSTART",
		"AWS_SECRET_ACCESS_KEY=coldstart-secret-access-key-example",
		"AWS_SESSION_TOKEN=coldstart-session-token-example",
		"AWS_XRAY_CONTEXT_MISSING=LOG_ERROR",
		"_HANDLER=bootstrap",
		"LAMBDA_TASK_ROOT=/var/task",
		"LAMBDA_RUNTIME_DIR=/var/runtime",
		"LANG=en_US.UTF-8",
		"TZ=:UTC",
		"PATH=/usr/local/bin:/usr/bin/:/bin:/opt/bin",
		"LD_LIBRARY_PATH=/var/lang/lib:/lib64:/usr/lib64:/var/runtime:/var/runtime/lib:/var/task:/var/task/lib:/opt/lib",
	}
	for k, v := range s {
		env = append(env, k+"="+v)
	}
	return env
}

// Process is one execution environment: a bootstrap process and its Runtime API.
type Process struct {
	API *RuntimeAPI
	// Started is taken just before the exec, the start of a cold start.
	Started time.Time
	cmd     *exec.Cmd
	exited  chan struct{}
	output  *tail
}

// Start execs b with the Lambda environment and a Runtime API of its own. The process's stdout and
// stderr (its logs) go to logs when not nil; the last lines are kept for error messages either way.
func Start(b Bootstrap, s Settings, logs io.Writer) (*Process, error) {
	api, err := StartRuntimeAPI(b.Function)
	if err != nil {
		return nil, err
	}
	p := &Process{API: api, exited: make(chan struct{}), output: &tail{}}
	var out io.Writer = p.output
	if logs != nil {
		out = io.MultiWriter(p.output, logs)
	}
	argv := append(append([]string(nil), b.Wrapper...), b.Path)
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Dir = filepath.Dir(b.Path)
	p.cmd.Env = lambdaEnv(b.Function, api.Addr, s)
	p.cmd.Stdout, p.cmd.Stderr = out, out
	// A process group of its own, so that Stop also ends what a Wrapper started; and a process that
	// outlives the harness (interrupted, crashed) is killed with it rather than left serving nothing.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	p.cmd.WaitDelay = 2 * time.Second
	p.Started = time.Now()
	if err := p.cmd.Start(); err != nil {
		api.Close()
		return nil, fmt.Errorf("start %s: %w", b.Function, err)
	}
	go func() {
		_ = p.cmd.Wait()
		close(p.exited)
		api.Close() // wakes an Invoke waiting on a process that died
	}()
	return p, nil
}

// Stop kills the process (and its group), as Lambda does when it retires an environment, and waits
// for it.
func (p *Process) Stop() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
	p.API.Close()
}

// Output is the end of what the process printed.
func (p *Process) Output() string { return p.output.String() }

// PeakRSS is the process's high-water mark of resident memory (VmHWM), which is what Lambda's
// "Max Memory Used" reports.
func (p *Process) PeakRSS() (int64, error) {
	select {
	case <-p.exited:
		return 0, errors.New("peak RSS: the process has exited")
	default:
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("peak RSS: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("peak RSS: %q: %w", rest, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("peak RSS: no VmHWM in /proc/%d/status", p.cmd.Process.Pid)
}

// CPUTime is the CPU time the process's threads have used so far (their schedstat run times), which on
// Lambda is what a function's memory size buys: CPU is allotted in proportion to it.
func (p *Process) CPUTime() (time.Duration, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", p.cmd.Process.Pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("cpu time: no schedstat for pid %d: %v", p.cmd.Process.Pid, err)
	}
	var total time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that just exited
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("cpu time: %s: %w", t, err)
		}
		total += time.Duration(ns)
	}
	return total, nil
}

// Faults is the page faults the process has taken so far (minor and major, /proc/PID/stat). Each page
// a process touches for the first time costs one, and they are much of what a cold process pays beyond
// a warm one (docs/PERFORMANCE.md).
func (p *Process) Faults() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("faults: %w", err)
	}
	// The command name (field 2) is in parentheses and may hold spaces: count fields after it.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 10 {
		return 0, fmt.Errorf("faults: short /proc/%d/stat", p.cmd.Process.Pid)
	}
	var n int64
	for _, i := range []int{7, 9} { // minflt and majflt: fields 10 and 12 of stat
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("faults: %w", err)
		}
		n += v
	}
	return n, nil
}

// tail keeps the last 16 KiB written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 16 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - tailBytes; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}

// LambdaFlags reads the go build flags of every Lambda bootstrap from the Makefile (GOFLAGS_LAMBDA), so
// that the harness measures what `make build` and `sam build` deploy. The Makefile keeps each flag one
// word for this.
func LambdaFlags(moduleRoot string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(moduleRoot, "Makefile"))
	if err != nil {
		return nil, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "GOFLAGS_LAMBDA"); ok {
			if v, ok := strings.CutPrefix(strings.TrimSpace(rest), ":="); ok {
				return strings.Fields(v), nil
			}
		}
	}
	return nil, fmt.Errorf("no GOFLAGS_LAMBDA := line in the Makefile")
}
