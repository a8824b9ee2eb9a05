// Copyright The update-status-apiserver Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package localstack

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"k8s.io/klog/v2"
)

// Process is a child process started in its own process group, with its
// output going to a log file.
type Process struct {
	Name    string
	LogPath string

	cmd    *exec.Cmd
	log    *os.File
	done   chan struct{}
	err    error // set before done is closed
	stopMu sync.Mutex
}

// StartProcess starts bin with args; stdout and stderr go to logPath. The
// process runs in a new process group (so Stop reaches its children too) and
// gets SIGKILL if the test process dies without stopping it.
func StartProcess(name, logPath, bin string, args ...string) (*Process, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Process{Name: name, LogPath: logPath, cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = log.Close()
		close(p.done)
	}()
	klog.V(2).InfoS("Started process", "name", name, "pid", cmd.Process.Pid, "log", logPath)
	return p, nil
}

// Pid is the process id (also its process group id).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited reports whether the process has ended, and how.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Stop sends SIGTERM to the process group, waits up to grace, then sends
// SIGKILL. It is safe to call more than once.
func (p *Process) Stop(grace time.Duration) {
	p.stopMu.Lock()
	defer p.stopMu.Unlock()
	if exited, _ := p.Exited(); exited {
		// The leader is gone; make sure nothing it started stays behind.
		_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
		return
	}
	_ = syscall.Kill(-p.Pid(), syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		klog.InfoS("Process did not stop in time; killing it", "name", p.Name, "pid", p.Pid(), "grace", grace)
		_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
		<-p.done
	}
	_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
	klog.V(2).InfoS("Stopped process", "name", p.Name, "pid", p.Pid())
}

// Kill sends SIGKILL to the process group and waits until the process has
// ended: it gets no chance to clean up, as when it crashes or its node dies.
func (p *Process) Kill() {
	p.stopMu.Lock()
	defer p.stopMu.Unlock()
	_ = syscall.Kill(-p.Pid(), syscall.SIGKILL)
	<-p.done
}

// LogTail returns the last n lines of the process log, for error messages.
func (p *Process) LogTail(n int) string {
	data, err := os.ReadFile(p.LogPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", p.LogPath, err)
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// exitError describes a process that ended while it was expected to run.
func (p *Process) exitError() error {
	exited, err := p.Exited()
	if !exited {
		return nil
	}
	if err == nil {
		err = errors.New("exit status 0")
	}
	return fmt.Errorf("%s exited: %w; last lines of %s:\n%s", p.Name, err, p.LogPath, p.LogTail(30))
}

// FreePorts returns n distinct TCP ports free on 127.0.0.1. The listeners are
// held until all ports are chosen, so the ports differ from each other; a
// port may still be taken by someone else before the caller binds it.
func FreePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer func() { _ = l.Close() }()
		_, port, err := net.SplitHostPort(l.Addr().String())
		if err != nil {
			return nil, err
		}
		p, err := strconv.Atoi(port)
		if err != nil {
			return nil, err
		}
		ports = append(ports, p)
	}
	return ports, nil
}
