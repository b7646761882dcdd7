// kernelarc serve: a local web page of the store's runs, a running one followed live through server-sent events, and
// each run's report. Loopback only unless --host says otherwise; the store is opened read-only for every request.
#include <fmt/format.h>
#include <httplib.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "cli/options.h"
#include "report/html_report.h"
#include "report/web_pages.h"
#include "store/run_reader.h"

namespace kernelarc::cli {

namespace fs = std::filesystem;

namespace {

struct ServeArguments {
  std::string store;
  int port = 8421;
  std::string host = "127.0.0.1";
};

// How often an open event stream looks for new events: a new candidate reaches the page well within a second.
constexpr auto kPollInterval = std::chrono::milliseconds(250);
// A comment line this often keeps proxies and the browser from dropping an idle stream.
constexpr auto kKeepAlive = std::chrono::seconds(15);

std::optional<std::int64_t> run_id_of(const httplib::Request& request) {
  try {
    const auto id = std::stoll(request.matches[1].str());
    return id > 0 ? std::optional(id) : std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void send_error(httplib::Response& response, int status, const std::string& message) {
  response.status = status;
  response.set_content(message + "\n", "text/plain; charset=utf-8");
}

int serve(const ServeArguments& args) {
  const fs::path store_path = args.store.empty() ? default_store_path() : fs::path(args.store);
  try {
    store::RunReader::open(store_path);  // fail now, with why, rather than on the first request
  } catch (const std::exception& error) {
    fmt::print(stderr, "kernelarc serve: {} (give --store, or set KERNELARC_STORE)\n", error.what());
    return kExitUsage;
  }
  httplib::Server server;
  const std::string path = store_path.string();
  // Set on Ctrl-C: open event streams end at their next poll, so stopping never waits on a client that stays.
  auto stopping = std::make_shared<std::atomic<bool>>(false);
  server.Get("/", [path](const httplib::Request&, httplib::Response& response) {
    try {
      response.set_content(report::runs_page_html(store::RunReader::open(path), path), "text/html; charset=utf-8");
    } catch (const std::exception& error) {
      send_error(response, 500, error.what());
    }
  });
  server.Get(R"(/run/(\d+))", [path](const httplib::Request& request, httplib::Response& response) {
    try {
      response.set_content(report::live_page_html(store::RunReader::open(path), run_id_of(request).value_or(0)), "text/html; charset=utf-8");
    } catch (const report::ReportError& error) {
      send_error(response, 404, error.what());
    } catch (const std::exception& error) {
      send_error(response, 500, error.what());
    }
  });
  server.Get(R"(/report/(\d+))", [path](const httplib::Request& request, httplib::Response& response) {
    try {
      const auto reader = store::RunReader::open(path);
      response.set_content(report::run_report_html(report::load_run(reader, run_id_of(request).value_or(0))), "text/html; charset=utf-8");
    } catch (const report::ReportError& error) {
      send_error(response, 404, error.what());
    } catch (const std::exception& error) {
      send_error(response, 500, error.what());
    }
  });
  server.Get(R"(/events/(\d+))", [path, stopping](const httplib::Request& request, httplib::Response& response) {
    const auto run_id = run_id_of(request).value_or(0);
    std::int64_t after = 0;
    if (request.has_param("after")) {
      try {
        after = std::stoll(request.get_param_value("after"));
      } catch (const std::exception&) {
        return send_error(response, 400, "after must be an event id");
      }
    }
    try {
      if (!store::RunReader::open(path).run(run_id)) return send_error(response, 404, fmt::format("there is no run {} in the store", run_id));
    } catch (const std::exception& error) {
      return send_error(response, 500, error.what());
    }
    response.set_header("Cache-Control", "no-cache");
    response.set_chunked_content_provider("text/event-stream", [path, run_id, after, stopping, quiet_since = std::chrono::steady_clock::now()](
                                                                   std::size_t, httplib::DataSink& sink) mutable {
      // One poll per call: new events out, else a keep-alive now and then; false (the stream ends) once the client left.
      if (*stopping) return false;
      try {
        const auto reader = store::RunReader::open(path);
        std::string out;
        for (const auto& event : reader.events(run_id, after)) {
          after = event.id;
          const auto j = report::live_event_json(reader, event);
          if (j.is_null()) continue;
          out += fmt::format("id: {}\nevent: {}\ndata: {}\n\n", event.id, j["kind"] == "judged" ? "judged" : "run", j.dump());
        }
        if (out.empty() && std::chrono::steady_clock::now() - quiet_since > kKeepAlive) out = ": still here\n\n";
        if (!out.empty()) {
          quiet_since = std::chrono::steady_clock::now();
          if (!sink.write(out.data(), out.size())) return false;
        }
      } catch (const std::exception&) {
        // A store busy with a writer, say: try again on the next poll.
      }
      std::this_thread::sleep_for(kPollInterval);
      return sink.is_writable();
    });
  });

  // SIGINT and SIGTERM are waited for on this thread; the server's threads never see them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  if (!server.bind_to_port(args.host.c_str(), args.port)) {
    fmt::print(stderr, "kernelarc serve: cannot listen on {}:{} (in use? give another --port)\n", args.host, args.port);
    return kExitUsage;
  }
  if (args.host != "127.0.0.1" && args.host != "localhost" && args.host != "::1")
    fmt::print(stderr, "kernelarc serve: warning: listening on {}, not loopback only: anyone who can reach it reads the store\n", args.host);
  fmt::print(stderr, "kernelarc serve: http://{}:{}/ (store {}, read only); Ctrl-C stops\n", args.host, args.port, path);
  std::thread listener([&server] { server.listen_after_bind(); });
  int received = 0;
  sigwait(&signals, &received);
  *stopping = true;
  server.stop();
  listener.join();
  fmt::print(stderr, "kernelarc serve: stopped\n");
  return kExitOk;
}

}  // namespace

CLI::App* add_serve_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ServeArguments>();
  auto* command = app.add_subcommand("serve", "Serve a local page of the runs, a running one live, and their reports (read only)");
  command->add_option("--store", args->store, "The run store (default $KERNELARC_STORE or ~/.local/share/kernelarc/runs.db)");
  command->add_option("--port", args->port, "The port to listen on")->check(whole_number(1, 65535))->capture_default_str();
  command->add_option("--host", args->host, "The address to listen on (loopback by default; another one is said with a warning)")->capture_default_str();
  command->callback([args, &exit_code] { exit_code = serve(*args); });
  return command;
}

}  // namespace kernelarc::cli
