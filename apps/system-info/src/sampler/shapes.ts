/**
 * What each collector returns: systeminformation's answers reduced to the fields the tools use,
 * in snake_case, with `null` where the machine cannot tell. No collector takes an argument from
 * a caller: tools filter and sort what the collectors enumerate.
 */
export interface CpuStatic {
  manufacturer: string;
  brand: string;
  cores: number;
  physical_cores: number;
  speed_ghz: number | null;
  speed_max_ghz: number | null;
}
export interface CpuLoad {
  total_percent: number | null;
  user_percent: number | null;
  system_percent: number | null;
  per_cpu: { cpu: number; load_percent: number | null }[];
  load_average: [number, number, number];
}
export interface Memory {
  total_bytes: number;
  used_bytes: number;
  free_bytes: number;
  available_bytes: number;
  swap_total_bytes: number;
  swap_used_bytes: number;
}
export interface ProcessInfo {
  pid: number;
  ppid: number;
  name: string;
  user: string;
  state: string;
  cpu_percent: number;
  memory_percent: number;
  memory_rss_bytes: number;
  started: string | null;
  command: string;
}
export interface ProcessList {
  total: number;
  running: number;
  sleeping: number;
  list: ProcessInfo[];
}
export interface TimeInfo {
  uptime_seconds: number;
  boot_time: string;
  timezone: string;
}
export interface OsInfo {
  platform: string;
  distro: string;
  release: string;
  kernel: string;
  arch: string;
  hostname: string;
}
export interface Filesystem {
  filesystem: string;
  type: string;
  mount: string;
  size_bytes: number;
  used_bytes: number;
  available_bytes: number;
  use_percent: number | null;
  read_only: boolean;
}
export interface NetInterface {
  name: string;
  ip4: string | null;
  ip6: string | null;
  mac: string | null;
  internal: boolean;
  operstate: string;
  speed_mbps: number | null;
}
export interface NetStat {
  name: string;
  rx_bytes: number;
  tx_bytes: number;
  rx_bytes_per_sec: number | null;
  tx_bytes_per_sec: number | null;
}
export interface ListeningPort {
  protocol: string;
  address: string;
  port: number;
  pid: number | null;
  process: string | null;
}
export interface Temperature {
  main_celsius: number | null;
  max_celsius: number | null;
  cores_celsius: number[];
}
export interface Battery {
  has_battery: boolean;
  percent: number | null;
  is_charging: boolean | null;
  ac_connected: boolean | null;
  time_remaining_minutes: number | null;
}
export interface Gpu {
  vendor: string;
  model: string;
  vram_mb: number | null;
}
export interface Container {
  id: string;
  name: string;
  image: string;
  state: string;
  started: string | null;
}
export interface UserSession {
  user: string;
  tty: string;
  login_time: string | null;
  from: string | null;
}
export interface AuthLog {
  source: string | null;
  lines: string[];
}
