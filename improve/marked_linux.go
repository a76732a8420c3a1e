//go:build linux

package improve

import (
	"bytes"
	"os"
	"strconv"
)

// marked lists the processes whose environment holds runEnv=id: every
// descendant of the loop's commands, those that left their process group
// (setsid, a daemon's double fork) too.
func marked(id string) []int {
	if id == "" {
		return nil
	}
	want := []byte(runEnv + "=" + id)
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if bytes.Equal(kv, want) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// zombie says whether the process has exited and waits for its parent to
// reap it: dead, though signals still reach it.
func zombie(pid int) bool {
	st := procStat(pid)
	return st.state == 'Z'
}

// groupMembers says whether a live (not zombie) process is in the group.
func groupMembers(pgid int) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st := procStat(pid); st.pgrp == pgid && st.state != 'Z' && st.state != 0 {
			return true
		}
	}
	return false
}

type stat struct {
	state byte
	pgrp  int
}

// procStat reads a process's state and process group from
// /proc/PID/stat; a zero stat when it is gone.
func procStat(pid int) stat {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}
	}
	i := bytes.LastIndexByte(b, ')') // the command's name may hold anything
	if i < 0 {
		return stat{}
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 4 {
		return stat{}
	}
	g, _ := strconv.Atoi(string(f[2]))
	return stat{state: f[0][0], pgrp: g}
}
