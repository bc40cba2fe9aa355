; LinkLab's Windows installer (NSIS 3, makensis on Windows or Linux): installs the one-folder
; bundle for the current user (no administrator rights), with a Start-menu entry, an uninstaller,
; and the association of .linklab session files and .linklab-exercise lab exercises with LinkLab.
;
; Build the bundle first (python installers/build.py), then, from the repository root:
;   makensis -DVERSION=0.1.0 installers/windows/linklab.nsi
; The setup program is written to dist/LinkLab-<version>-windows-x86_64-setup.exe.
; A bundle built with `build.py --engineless-smoke` (no iperf3; for the smoke test under Wine
; only) is refused unless -DENGINELESS_SMOKE is given, and then the setup program's name says
; ENGINELESS-SMOKE-NOT-FOR-RELEASE; a bundle with no engine (neither iperf3 nor iperf 2) is
; refused either way otherwise.
;
; Silent install: setup.exe /S [/D=FOLDER]; silent uninstall: uninstall.exe /S.

Unicode true
; A 64-bit setup program where makensis has the stubs for it (Debian's nsis does); NSIS's own
; Windows release ships 32-bit stubs only, whose setup runs on 64-bit Windows just as well.
!if /FileExists "${NSISDIR}\Stubs\lzma_solid-amd64-unicode"
  Target amd64-unicode
  !echo "LinkLab setup target: amd64-unicode"
!else
  Target x86-unicode
  !echo "LinkLab setup target: x86-unicode"
!endif
ManifestDPIAware true
RequestExecutionLevel user
SetCompressor /SOLID lzma

!ifndef VERSION
  ; Kept equal to app.__version__ by tests/installers/test_windows_files.py.
  !define VERSION "0.1.0"
!endif
!ifndef BUNDLE
  !define BUNDLE "..\..\dist\linklab"
!endif
!ifndef OUTDIR
  !define OUTDIR "..\..\dist"
!endif
!define APPNAME "LinkLab"
; The windowed build: no console window behind the Start-menu entry or an opened file.
!define APPEXE "linklabw.exe"
; Never change it: it is how Windows knows an update or an uninstall is this program.
!define APPID "{854B3B89-AB87-4975-A0ED-96644E74E42E}"
!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APPID}"
!define UNINSTEXE "uninstall.exe"
; app.store.exchange.EXCHANGE_SUFFIX, and the ProgID that opens it.
!define EXCHANGE_EXT ".linklab"
!define EXCHANGE_PROGID "LinkLab.Sessions"
!define EXCHANGE_NAME "LinkLab sessions"
; app.domain.exercise.EXERCISE_SUFFIX: lab exercises open in their guided view.
!define EXERCISE_EXT ".linklab-exercise"
!define EXERCISE_PROGID "LinkLab.Exercise"
!define EXERCISE_NAME "LinkLab lab exercise"
; What installers/build.py writes into a bundle built without engines, and where engines go.
!define ENGINELESS_MARK "_internal\ENGINELESS-SMOKE-NOT-FOR-RELEASE.txt"
!define ENGINE "_internal\resources\engines\windows-x86_64\iperf3.exe"
; iperf 2.2.1, built from its pinned source by installers/build_iperf2.py: an engine by itself.
!define ENGINE2 "_internal\resources\engines\windows-x86_64\iperf.exe"

!if ! /FileExists "${BUNDLE}\${APPEXE}"
  !error "No ${APPEXE} in ${BUNDLE}: build the bundle first (python installers/build.py)."
!endif
!ifdef ENGINELESS_SMOKE
  !define OUTNAME "${APPNAME}-${VERSION}-windows-x86_64-ENGINELESS-SMOKE-NOT-FOR-RELEASE.exe"
!else
  !if /FileExists "${BUNDLE}\${ENGINELESS_MARK}"
    !error "${BUNDLE} was built with --engineless-smoke: it has no engines and is never released."
  !endif
  !if ! /FileExists "${BUNDLE}\${ENGINE}"
    !if ! /FileExists "${BUNDLE}\${ENGINE2}"
      !error "${BUNDLE} has neither ${ENGINE} nor ${ENGINE2}: a release ships its engines."
    !endif
  !endif
  !define OUTNAME "${APPNAME}-${VERSION}-windows-x86_64-setup.exe"
!endif

Name "${APPNAME}"
OutFile "${OUTDIR}\${OUTNAME}"
; Per user: the user's Programs folder (%LOCALAPPDATA%\Programs), as Windows' own per-user
; installs use.
InstallDir "$LOCALAPPDATA\Programs\${APPNAME}"
InstallDirRegKey HKCU "${UNINSTKEY}" "InstallLocation"
BrandingText "${APPNAME} ${VERSION}"

!include "MUI2.nsh"
!define MUI_ICON "..\..\resources\icons\linklab.ico"
!define MUI_UNICON "..\..\resources\icons\linklab.ico"
!define MUI_FINISHPAGE_RUN "$INSTDIR\${APPEXE}"
; LinkLab's MIT licence, shown on the licence page.
!insertmacro MUI_PAGE_LICENSE "..\..\LICENSE"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "${APPNAME}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${APPNAME} installer"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "LegalCopyright" "MIT licence"

; ProgID EXT PROGID NAME: .EXT files open in the windowed LinkLab, which imports them.
!macro Associate EXT PROGID NAME
  WriteRegStr HKCU "Software\Classes\${EXT}" "" "${PROGID}"
  WriteRegStr HKCU "Software\Classes\${EXT}\OpenWithProgids" "${PROGID}" ""
  WriteRegStr HKCU "Software\Classes\${PROGID}" "" "${NAME}"
  WriteRegStr HKCU "Software\Classes\${PROGID}\DefaultIcon" "" "$INSTDIR\linklab.ico"
  WriteRegStr HKCU "Software\Classes\${PROGID}\shell\open\command" "" '"$INSTDIR\${APPEXE}" "%1"'
  WriteRegStr HKCU "Software\Classes\Applications\${APPEXE}\SupportedTypes" "${EXT}" ""
!macroend

; The ProgID goes; the extension's default value goes only while it still names LinkLab (another
; program may have taken the type since), and its keys only once empty.
!macro Unassociate EXT PROGID
  DeleteRegKey HKCU "Software\Classes\${PROGID}"
  DeleteRegValue HKCU "Software\Classes\${EXT}\OpenWithProgids" "${PROGID}"
  DeleteRegKey /ifempty HKCU "Software\Classes\${EXT}\OpenWithProgids"
  ReadRegStr $0 HKCU "Software\Classes\${EXT}" ""
  StrCmp $0 "${PROGID}" 0 +2
    DeleteRegValue HKCU "Software\Classes\${EXT}" ""
  DeleteRegKey /ifempty HKCU "Software\Classes\${EXT}"
!macroend

Section "LinkLab"
  SetShellVarContext current
  SetOutPath "$INSTDIR"
  ; An update replaces the previous bundle's internals: files an older version had and this one
  ; dropped must not linger beside the new ones.
  RMDir /r "$INSTDIR\_internal"
  File /r "${BUNDLE}\*"
  File "..\..\resources\icons\linklab.ico"
  WriteUninstaller "$INSTDIR\${UNINSTEXE}"

  CreateShortcut "$SMPROGRAMS\${APPNAME}.lnk" "$INSTDIR\${APPEXE}" "" "$INSTDIR\linklab.ico"

  !insertmacro Associate "${EXCHANGE_EXT}" "${EXCHANGE_PROGID}" "${EXCHANGE_NAME}"
  !insertmacro Associate "${EXERCISE_EXT}" "${EXERCISE_PROGID}" "${EXERCISE_NAME}"

  ; Apps & features: per-user entry with its uninstaller.
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayName" "${APPNAME}"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTKEY}" "Publisher" "${APPNAME}"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayIcon" "$INSTDIR\linklab.ico"
  WriteRegStr HKCU "${UNINSTKEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTKEY}" "UninstallString" '"$INSTDIR\${UNINSTEXE}"'
  WriteRegStr HKCU "${UNINSTKEY}" "QuietUninstallString" '"$INSTDIR\${UNINSTEXE}" /S'
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoRepair" 1

  ; Explorer picks up the new file types (SHCNE_ASSOCCHANGED).
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
SectionEnd

Section "Uninstall"
  SetShellVarContext current
  Delete "$SMPROGRAMS\${APPNAME}.lnk"
  !insertmacro Unassociate "${EXCHANGE_EXT}" "${EXCHANGE_PROGID}"
  !insertmacro Unassociate "${EXERCISE_EXT}" "${EXERCISE_PROGID}"
  DeleteRegKey HKCU "Software\Classes\Applications\${APPEXE}"
  DeleteRegKey HKCU "${UNINSTKEY}"
  ; What the installer put there, by name; the user's own files (the database lives in the
  ; user-data folder, not here) are never touched, so the folder goes only once empty.
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\linklab.exe"
  Delete "$INSTDIR\${APPEXE}"
  Delete "$INSTDIR\linklab.ico"
  Delete "$INSTDIR\${UNINSTEXE}"
  RMDir "$INSTDIR"
  System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'
SectionEnd
