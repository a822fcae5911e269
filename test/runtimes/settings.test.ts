import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SettingsError } from '../../src/config/env.js';
import { SANDBOX_ENV, SANDBOX_ENV_NAMES, scriptSettingsFromEnv } from '../../src/runtimes/index.js';

describe('script settings from the environment', () => {
  it('apply the documented defaults when a setting is unset or empty', () => {
    for (const env of [{}, { VANTAGE_SCRIPT_MEMORY_MB: '', VANTAGE_BROWSER_VIDEO: ' ', CHROMIUM_PATH: '' }]) {
      expect(scriptSettingsFromEnv(env)).toMatchObject({
        runtimesDir: resolve('runtimes'),
        workDir: join(tmpdir(), 'vantage-runs'),
        cacheDir: join(tmpdir(), 'vantage-cache'),
        chromiumPath: null,
        ffmpegPath: null,
        memoryLimitMb: 2048,
        video: 'off',
      });
    }
  });

  it('take each setting from the environment, the browser video among them', () => {
    expect(
      scriptSettingsFromEnv({
        VANTAGE_WORK_DIR: '/srv/runs',
        FFMPEG_PATH: '/opt/ffmpeg',
        VANTAGE_SCRIPT_MEMORY_MB: '512',
        VANTAGE_BROWSER_VIDEO: 'retain-on-failure',
        VANTAGE_SCRIPT_USER: 'same',
      }),
    ).toMatchObject({
      workDir: '/srv/runs',
      ffmpegPath: '/opt/ffmpeg',
      memoryLimitMb: 512,
      video: 'retain-on-failure',
      scriptUsers: { mode: 'agent', warning: null },
    });
  });

  it('are refused with one line per bad setting naming it and its rule, never replaced by a default', () => {
    const refused = (env: NodeJS.ProcessEnv) => {
      try {
        scriptSettingsFromEnv(env);
      } catch (error) {
        expect(error).toBeInstanceOf(SettingsError);
        return (error as SettingsError).problems;
      }
      throw new Error('accepted');
    };
    expect(refused({ VANTAGE_SCRIPT_MEMORY_MB: 'lots' })).toEqual([
      'VANTAGE_SCRIPT_MEMORY_MB: must be a whole number from 64 to 1048576',
    ]);
    expect(
      refused({
        VANTAGE_SCRIPT_MEMORY_MB: '32',
        VANTAGE_SCRIPT_USERS: '20063-20000',
        VANTAGE_SCRIPT_USER: 'nobody',
        VANTAGE_BROWSER_VIDEO: 'always',
      }),
    ).toEqual([
      'VANTAGE_SCRIPT_MEMORY_MB: must be a whole number from 64 to 1048576',
      'VANTAGE_SCRIPT_USERS: must be FIRST-LAST, a range of uids above 0',
      'VANTAGE_SCRIPT_USER: must be same, or UID:GID of the one user every script runs as',
      'VANTAGE_BROWSER_VIDEO: must be one of off, on, retain-on-failure',
    ]);
  });

  it('are listed for vantage run --help', () => {
    expect(SANDBOX_ENV_NAMES).toEqual(Object.keys(SANDBOX_ENV.shape));
  });
});
