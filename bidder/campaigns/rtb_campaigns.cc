// rtb-campaigns: the campaigns table as the config file's JSON.
//
//   rtb-campaigns --config <bidder config> export FILE
//   rtb-campaigns --config <bidder config> import FILE [--operator NAME]
//
// export writes {"campaigns": [...]} with every campaign that is not
// archived, each as stored, "enabled" saying whether it is active; import
// reads such a file (a whole bidder config file works too: only its
// campaigns[] is read), creates the campaigns the store lacks and updates
// those that differ (state included), each as one audited change by
// --operator (default "rtb-campaigns"). Every campaign is validated by the
// config's rules first; one invalid campaign stops the import before any
// change. Exit 0 on success, 1 with one line per problem otherwise.
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bidder/campaigns/campaign_store.h"
#include "config/config.h"
#include "nlohmann/json.hpp"
#include "storage/clock.h"
#include "storage/startup/startup.h"

namespace {

using rtb::bidder::campaigns::CampaignRecord;
using rtb::bidder::campaigns::CampaignState;
using rtb::bidder::campaigns::CampaignStore;
using Json = nlohmann::ordered_json;

constexpr char kProgram[] = "rtb-campaigns";
constexpr char kUsage[] =
    "usage: rtb-campaigns --config <file> export FILE\n"
    "       rtb-campaigns --config <file> import FILE [--operator NAME]\n"
    "  --config <file>    the bidder configuration (its store and currency rules)\n"
    "  --operator <name>  who the import's audit records name (default rtb-campaigns)\n";

int Fail(absl::string_view message) {
  return rtb::startup::FailStart(kProgram, std::string_view(message.data(), message.size()));
}

// The stored object with "enabled" set from the state.
Json Exported(const CampaignRecord& record) {
  Json object = Json::parse(record.json);
  object["enabled"] = record.state == CampaignState::kActive;
  return object;
}

int Export(CampaignStore& campaigns, const std::string& path) {
  absl::StatusOr<std::vector<CampaignRecord>> all = campaigns.List();
  if (!all.ok()) return Fail(all.status().message());
  Json out = {{"campaigns", Json::array()}};
  for (const CampaignRecord& record : *all) {
    if (record.state != CampaignState::kArchived) out["campaigns"].push_back(Exported(record));
  }
  std::ofstream file(path, std::ios::trunc);
  file << out.dump(2) << "\n";
  if (!file.flush()) return Fail("cannot write " + path);
  rtb::startup::Log(kProgram,
                    absl::StrCat("exported ", out["campaigns"].size(), " campaigns to ", path));
  return 0;
}

int Import(CampaignStore& campaigns, const rtb::config::BidderConfig& config,
           const std::string& path, const std::string& operator_name) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  if (!file) return Fail("cannot read " + path);
  Json document = Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object() || !document.contains("campaigns") ||
      !document["campaigns"].is_array()) {
    return Fail(path + ": expected a JSON object with a campaigns array");
  }
  // Every campaign valid before anything changes.
  bool valid = true;
  for (size_t i = 0; i < document["campaigns"].size(); ++i) {
    absl::StatusOr<rtb::config::CampaignConfig> campaign =
        rtb::config::ParseCampaign(document["campaigns"][i].dump(), config);
    if (!campaign.ok()) {
      Fail(absl::StrCat(path, ": campaigns[", i, "]: ", campaign.status().message()));
      valid = false;
    }
  }
  if (!valid) return 1;
  int created = 0, updated = 0, unchanged = 0;
  for (Json object : document["campaigns"]) {
    const bool enabled = object.value("enabled", true);
    const std::string id = object.value("id", "");
    object.erase("enabled");
    absl::StatusOr<std::optional<CampaignRecord>> current = campaigns.Get(id);
    if (!current.ok()) return Fail(current.status().message());
    if (!*current) {
      object["enabled"] = enabled;
      if (auto r = campaigns.Create(object.dump(), operator_name); !r.ok()) {
        return Fail(absl::StrCat(id, ": ", r.status().message()));
      }
      ++created;
      continue;
    }
    CampaignRecord record = **current;
    if (record.state == CampaignState::kArchived) {
      return Fail(absl::StrCat(id, ": archived in the store; ids are never reused"));
    }
    bool changed = false;
    if (Json::parse(record.json) != object) {
      auto r = campaigns.Update(id, object.dump(), record.version, operator_name);
      if (!r.ok()) return Fail(absl::StrCat(id, ": ", r.status().message()));
      record = *r;
      changed = true;
    }
    const CampaignState wanted = enabled ? CampaignState::kActive : CampaignState::kPaused;
    if (record.state != wanted) {
      auto r = campaigns.SetState(id, wanted, record.version, operator_name);
      if (!r.ok()) return Fail(absl::StrCat(id, ": ", r.status().message()));
      changed = true;
    }
    changed ? ++updated : ++unchanged;
  }
  rtb::startup::Log(kProgram, absl::StrCat("imported ", path, ": ", created, " created, ", updated,
                                           " updated, ", unchanged, " unchanged"));
  return 0;
}

int Run(int argc, char** argv) {
  std::string config_path;
  std::string operator_name = "rtb-campaigns";
  // The command and its file follow the flags.
  std::vector<char*> flag_args = {argv[0]};
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.starts_with("-")) {
      flag_args.push_back(argv[i]);
      if (arg.find('=') == std::string_view::npos && arg != "--help" && arg != "-h" &&
          i + 1 < argc) {
        flag_args.push_back(argv[++i]);
      }
    } else {
      positional.emplace_back(arg);
    }
  }
  rtb::startup::FlagParser flags(kProgram, kUsage);
  flags.Text("--config", &config_path);
  flags.Text("--operator", &operator_name);
  flags.Require("--config");
  if (std::optional<int> exit_code = rtb::startup::ExitCodeAfter(
          flags.Parse(static_cast<int>(flag_args.size()), flag_args.data())))
    return *exit_code;
  if (positional.size() != 2 || (positional[0] != "export" && positional[0] != "import")) {
    std::cerr << kProgram << ": expected export FILE or import FILE\n" << kUsage;
    return 1;
  }
  absl::StatusOr<rtb::config::BidderConfig> config = rtb::config::LoadConfigFile(config_path);
  if (!config.ok()) return Fail(config.status().message());
  absl::StatusOr<std::unique_ptr<rtb::storage::Store>> store =
      rtb::startup::OpenBidderStore(*config);
  if (!store.ok()) return Fail(store.status().message());
  CampaignStore campaigns(**store, rtb::storage::SystemClock(), [&](std::string_view json) {
    return rtb::config::ParseCampaign(json, *config);
  });
  return positional[0] == "export" ? Export(campaigns, positional[1])
                                   : Import(campaigns, *config, positional[1], operator_name);
}

}  // namespace

int main(int argc, char** argv) {
  rtb::startup::ConfigureRuntime();
  return rtb::startup::RunMain(kProgram, [&] { return Run(argc, argv); });
}
