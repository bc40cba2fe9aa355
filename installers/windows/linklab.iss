; LinkLab's Windows installer (Inno Setup 6): installs the one-folder bundle dist\linklab\ for the
; current user (no administrator rights), with a Start-menu entry, an optional desktop icon, an
; uninstaller, and the association of .linklab session files with LinkLab.
;
; Build the bundle first (python installers/build.py), then, from the repository root:
;   iscc /DAppVersion=0.1.0 installers\windows\linklab.iss
; The setup program is written to dist\LinkLab-<version>-windows-x86_64-setup.exe.

#ifndef AppVersion
  ; Kept equal to app.__version__ by tests/installers/test_windows_files.py.
  #define AppVersion "0.1.0"
#endif
#define AppName "LinkLab"
; The windowed build: no console window behind the Start-menu entry or an opened file.
#define AppExeName "linklabw.exe"
; app.store.exchange.EXCHANGE_SUFFIX, and the ProgID that opens it.
#define ExchangeExt ".linklab"
#define ExchangeProgId "LinkLab.Sessions"
#define ExchangeName "LinkLab sessions"
; app.domain.exercise.EXERCISE_SUFFIX: lab exercises open in their guided view.
#define ExerciseExt ".linklab-exercise"
#define ExerciseProgId "LinkLab.Exercise"
#define ExerciseName "LinkLab lab exercise"

[Setup]
; Never change AppId: it is how Windows knows an update or an uninstall is this program.
AppId={{854B3B89-AB87-4975-A0ED-96644E74E42E}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher={#AppName}
; Per user: {autopf} is the user's Programs folder (%LOCALAPPDATA%\Programs).
PrivilegesRequired=lowest
DefaultDirName={autopf}\{#AppName}
DisableProgramGroupPage=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
ChangesAssociations=yes
SetupIconFile=..\..\resources\icons\linklab.ico
; LinkLab's MIT licence, shown on the wizard's licence page.
LicenseFile=..\..\LICENSE
UninstallDisplayIcon={app}\linklab.ico
UninstallDisplayName={#AppName}
OutputDir=..\..\dist
OutputBaseFilename={#AppName}-{#AppVersion}-windows-x86_64-setup
Compression=lzma2
SolidCompression=yes
WizardStyle=modern

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[InstallDelete]
; An update replaces the previous bundle's internals: files an older version had and this one
; dropped must not linger beside the new ones.
Type: filesandordirs; Name: "{app}\_internal"

[Files]
Source: "..\..\dist\linklab\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs
Source: "..\..\resources\icons\linklab.ico"; DestDir: "{app}"; Flags: ignoreversion

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\{#AppExeName}"; IconFilename: "{app}\linklab.ico"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\{#AppExeName}"; IconFilename: "{app}\linklab.ico"; Tasks: desktopicon

[Registry]
; .linklab files open in LinkLab, which imports them. HKCU only: this is a per-user install.
Root: HKCU; Subkey: "Software\Classes\{#ExchangeExt}"; ValueType: string; ValueName: ""; ValueData: "{#ExchangeProgId}"; Flags: uninsdeletevalue uninsdeletekeyifempty
Root: HKCU; Subkey: "Software\Classes\{#ExchangeExt}\OpenWithProgids"; ValueType: string; ValueName: "{#ExchangeProgId}"; ValueData: ""; Flags: uninsdeletevalue uninsdeletekeyifempty
Root: HKCU; Subkey: "Software\Classes\{#ExchangeProgId}"; ValueType: string; ValueName: ""; ValueData: "{#ExchangeName}"; Flags: uninsdeletekey
Root: HKCU; Subkey: "Software\Classes\{#ExchangeProgId}\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\linklab.ico"
Root: HKCU; Subkey: "Software\Classes\{#ExchangeProgId}\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExeName}"" ""%1"""
Root: HKCU; Subkey: "Software\Classes\Applications\{#AppExeName}"; Flags: uninsdeletekey
Root: HKCU; Subkey: "Software\Classes\Applications\{#AppExeName}\SupportedTypes"; ValueType: string; ValueName: "{#ExchangeExt}"; ValueData: ""
Root: HKCU; Subkey: "Software\Classes\{#ExerciseExt}"; ValueType: string; ValueName: ""; ValueData: "{#ExerciseProgId}"; Flags: uninsdeletevalue uninsdeletekeyifempty
Root: HKCU; Subkey: "Software\Classes\{#ExerciseExt}\OpenWithProgids"; ValueType: string; ValueName: "{#ExerciseProgId}"; ValueData: ""; Flags: uninsdeletevalue uninsdeletekeyifempty
Root: HKCU; Subkey: "Software\Classes\{#ExerciseProgId}"; ValueType: string; ValueName: ""; ValueData: "{#ExerciseName}"; Flags: uninsdeletekey
Root: HKCU; Subkey: "Software\Classes\{#ExerciseProgId}\DefaultIcon"; ValueType: string; ValueName: ""; ValueData: "{app}\linklab.ico"
Root: HKCU; Subkey: "Software\Classes\{#ExerciseProgId}\shell\open\command"; ValueType: string; ValueName: ""; ValueData: """{app}\{#AppExeName}"" ""%1"""
Root: HKCU; Subkey: "Software\Classes\Applications\{#AppExeName}\SupportedTypes"; ValueType: string; ValueName: "{#ExerciseExt}"; ValueData: ""

[Run]
Filename: "{app}\{#AppExeName}"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent
