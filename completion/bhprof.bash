# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# bash completion for bhprof(8).
#
# The commands and their options are read at completion time from
# 'bhprof --help' and 'bhprof COMMAND --help', so a new command or option
# completes with no edit here. Only arguments are special cases: block
# devices after -d, attach modes after --attach, recordings (.bhp) for
# report, diff and gate and after --baseline and --candidate; any other
# argument by the name its help gives it (FILE, DIR, PID, OUT.html).

# _bhprof_commands BIN: one "NAME" line per command of 'BIN --help', and
# "default NAME" for the one marked "(default)"
_bhprof_commands()
{
	"$1" --help 2>/dev/null | awk '
		/^Commands:/ { on = 1; next }
		on && /^$/ { exit }
		on && /^ +[a-z]/ {
			print $1
			if (/\(default\)/)
				print "default", $1
		}'
}

# _bhprof_options BIN CMD: one "OPTION [ARG]" line per option that
# 'BIN CMD --help' shows in its usage lines or in its option table
_bhprof_options()
{
	"$1" "$2" --help 2>/dev/null | awk '
		/^Usage:/ { usage = 1 }
		usage && /^$/ { usage = 0 }
		usage {
			# "[-o FILE]", "[-d DEV]...", "[--json | --csv", "A B"
			for (i = 1; i <= NF; i++) {
				w = $i
				sub(/^\[+/, "", w)
				# "--callers[=full]": an optional argument
				sub(/\[=[^]]*\]/, "", w)
				if (w !~ /^--?[A-Za-z]/)
					continue
				closed = sub(/\].*$/, "", w)
				a = ""
				if (!closed && i < NF && $(i + 1) ~ /^[A-Z]/) {
					a = $(i + 1)
					sub(/\].*$/, "", a)
				}
				print w, a
			}
			next
		}
		/^ +-/ {
			# "  -i, --interval SEC   text", "      --json   text"
			line = $0
			sub(/^ +/, "", line)
			split(line, col, /  +/)
			n = split(col[1], t, /,? +/)
			a = t[n] ~ /^-/ ? "" : t[n]
			for (i = 1; i <= n; i++)
				if (t[i] ~ /^-/) {
					sub(/\[=[^]]*\]$/, "", t[i])
					print t[i], a
				}
		}' | sort -u
}

# block devices as -d takes them: NAME, or /dev/NAME once cur says so
_bhprof_devices()
{
	local d names=()

	if [[ -d /sys/class/block ]]; then
		for d in /sys/class/block/*; do
			[[ -e $d ]] && names+=("${d##*/}")
		done
	else
		mapfile -t names < <(lsblk -nro NAME 2>/dev/null)
	fi
	[[ $cur == /dev/* ]] && names=("${names[@]/#//dev/}")
	mapfile -t COMPREPLY < <(compgen -W "${names[*]}" -- "$cur")
}

# _bhprof_arg OPTION ARGNAME: complete the argument of an option
_bhprof_arg()
{
	case $1 in
	-d | --device)
		_bhprof_devices
		return
		;;
	--attach)
		mapfile -t COMPREPLY < \
			<(compgen -W 'auto fentry kprobe tracepoint' -- "$cur")
		return
		;;
	--baseline | --candidate)
		_filedir bhp
		return
		;;
	esac
	case $2 in
	*PID*) _pids ;;
	DIR*) _filedir -d ;;
	*.[a-z]*) _filedir "${2##*.}" ;;	# OUT.html, OUT.xml
	*FILE*) _filedir ;;
	*) COMPREPLY=() ;;	# SEC, N, ADDR:PORT, ...: nothing to offer
	esac
}

_bhprof()
{
	local cur prev words cword
	_init_completion -n : || return

	local bin=$1
	[[ $bin == */* ]] || bin=$(type -P "$bin") || return
	[[ -x $bin ]] || return

	local list cmds=() c def=top cmd="" i
	list=$(_bhprof_commands "$bin")
	while read -r c i; do
		if [[ $c == default ]]; then
			def=$i
		else
			cmds+=("$c")
		fi
	done <<<"$list"

	if ((cword == 1)) && [[ $cur != -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "${cmds[*]}" -- "$cur")
		return
	fi

	# the command, matched by prefix as bhprof does; "bhprof -i 2" is
	# the default command
	if [[ ${words[1]} == -* ]]; then
		cmd=$def
	else
		for c in "${cmds[@]}"; do
			if [[ $c == "${words[1]}" ]]; then
				cmd=$c
				break
			fi
			if [[ $c == "${words[1]}"* ]]; then
				[[ -n $cmd ]] && return	# ambiguous
				cmd=$c
			fi
		done
		[[ -n $cmd ]] || return
	fi

	# after "--": the command bhprof runs, completed as its own
	for ((i = 1; i < cword; i++)); do
		if [[ ${words[i]} == -- ]]; then
			_command_offset $((i + 1))
			return
		fi
	done

	local opts o a argof=
	declare -A arg=()
	opts=$(_bhprof_options "$bin" "$cmd")
	while read -r o a; do
		[[ -n $o ]] && arg[$o]=$a
	done <<<"$opts"

	# the option whose argument this is: the previous word, or for
	# "--baseline FILES..." any word after it up to the next option
	if [[ $prev == -* && -n ${arg[$prev]} ]]; then
		argof=$prev
	elif [[ $cur != -* ]]; then
		for ((i = cword - 1; i > 1; i--)); do
			if [[ ${words[i]} == -* ]]; then
				[[ ${arg[${words[i]}]} == *... ]] && argof=${words[i]}
				break
			fi
		done
	fi
	if [[ -n $argof ]]; then
		_bhprof_arg "$argof" "${arg[$argof]}"
		return
	fi

	if ((cword == 1)) || [[ $cur == -* ]]; then
		((cword == 1)) && opts+=$'\n--help\n--version'
		mapfile -t COMPREPLY < <(compgen -W "$(cut -d' ' -f1 <<<"$opts")" -- "$cur")
		return
	fi

	case $cmd in
	report | diff | gate)
		_filedir bhp
		;;
	*)
		mapfile -t COMPREPLY < <(compgen -W "$(cut -d' ' -f1 <<<"$opts")" -- "$cur")
		;;
	esac
} &&
	complete -F _bhprof bhprof
