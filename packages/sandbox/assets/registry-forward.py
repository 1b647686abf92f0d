# Runs INSIDE an install sandbox, with the helper image's python3, as the sandbox user: the same
# relay as registry-forward.mjs (loopback port -> the worker's registry proxy socket), for pip.
# Usage: python3 registry-forward.py <socket> <port> <command> [args...]
import socket
import subprocess
import sys
import threading


def pipe(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def serve(listener, socket_path):
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(socket_path)
        except OSError:
            client.close()
            continue
        threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
        threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()


def main():
    if len(sys.argv) < 4:
        sys.stderr.write("usage: registry-forward.py <socket> <port> <command> [args...]\n")
        return 2
    socket_path, port, command = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    listener = socket.create_server(("127.0.0.1", port))
    threading.Thread(target=serve, args=(listener, socket_path), daemon=True).start()
    try:
        status = subprocess.call(command)
    except OSError as err:
        sys.stderr.write(f"{command[0]}: {err}\n")
        return 127
    return 128 - status if status < 0 else status


sys.exit(main())
